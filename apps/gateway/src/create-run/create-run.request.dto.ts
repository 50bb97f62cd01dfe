import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

/** Body of `POST /v1/runs` (rest-endpoints.md §POST /v1/runs request). Unknown fields are rejected. */
export class CreateRunRequestDto {
  @ApiProperty({ description: 'Id of a registered workflow (see `fixtures` in discovery).', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  workflowId!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Workflow inputs.' })
  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Must equal the API key tenant when given (it defaults to it).' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  tenantId?: string;

  @ApiPropertyOptional({ description: 'Opaque correlation scope.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  scopeId?: string;

  @ApiPropertyOptional({ description: 'Signed-token HITL callback URL.' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  callbackUrl?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Per-run parameter overlay (RunOptions.configurable).' })
  @IsOptional()
  @IsObject()
  configurable?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}
