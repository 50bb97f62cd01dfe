import { MAX_ID_LENGTH, MAX_NODE_EXECUTIONS } from '@openwop/contracts';
import {
  ArrayMaxSize,
  IsArray,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { Describe } from '../common/describe.decorator';
import { WithinRunLimits } from '../common/limits.validators';

/** Longest `callbackUrl` (the common URL length limit of browsers and proxies). */
export const MAX_CALLBACK_URL_LENGTH = 2048;
/** Most `tags` on one run. */
export const MAX_TAGS = 100;

/** Body of `POST /v1/runs` (rest-endpoints.md §POST /v1/runs request). Unknown fields are rejected. */
@Describe('WorkflowId + inputs + RunOptions (`schemas/run-options.schema.json`).')
export class CreateRunRequestDto {
  @Describe('Id of a registered workflow (see `fixtures` in discovery).')
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_ID_LENGTH)
  workflowId!: string;

  @Describe('Workflow inputs.')
  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @Describe('Must equal the API key tenant when given (it defaults to it).')
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_ID_LENGTH)
  tenantId?: string;

  @Describe('Opaque correlation scope.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  scopeId?: string;

  @Describe('Signed-token HITL callback URL.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CALLBACK_URL_LENGTH)
  callbackUrl?: string;

  @Describe(
    `Per-run parameter overlay (RunOptions.configurable); \`recursionLimit\` 1..${MAX_NODE_EXECUTIONS} (limits.maxNodeExecutions).`,
  )
  @IsOptional()
  @IsObject()
  @WithinRunLimits()
  configurable?: Record<string, unknown>;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsString({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  tags?: string[];

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}
