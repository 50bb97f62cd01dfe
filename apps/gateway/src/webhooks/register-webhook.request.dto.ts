import { RUN_EVENT_TYPES, MAX_ID_LENGTH } from '@openwop/contracts';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
} from 'class-validator';
import { Describe } from '../common/describe.decorator';

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Most tags one subscription filters on. */
export const MAX_WEBHOOK_TAGS = 50;
/** Shortest and longest secret a caller may supply (a generated one is 64 hex characters). */
export const MIN_SUPPLIED_SECRET_LENGTH = 16;
export const MAX_SUPPLIED_SECRET_LENGTH = 1024;
/** Most entries of `signatureAlgorithms`. */
export const MAX_SIGNATURE_ALGORITHMS = 8;

/**
 * Body of `POST /v1/webhooks` (webhooks.md §Register). `tenantId` defaults to the key's tenant
 * and must be it when given; `durable` (host extension, RFC 0083) asks for retries with backoff
 * and dead letters instead of the best-effort single attempt. Unknown fields are refused.
 */
@Describe("webhooks.md §Register; `durable` is this host's opt-in to RFC 0083 durable delivery.")
export class RegisterWebhookRequestDto {
  @Describe('`https://` URL (SSRF-checked); `http://` only for allow-listed hosts.')
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url!: string;

  @Describe('Run event types to deliver (`RunEventType`).')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(RUN_EVENT_TYPES.length)
  @IsIn(RUN_EVENT_TYPES, { each: true })
  events!: string[];

  @Describe("The tenant of the subscription: the API key's own (the default).")
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  tenantId?: string;

  @Describe('Only runs whose tags overlap these.')
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_WEBHOOK_TAGS)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  tags?: string[];

  @Describe('Durable delivery (RFC 0083): retries with backoff, then a dead letter. Default: best effort.')
  @IsOptional()
  @IsBoolean()
  durable?: boolean;

  @Describe(
    'The subscription secret; generated (and returned once) when absent, never echoed when supplied. `standard-webhooks-1` needs `whsec_<base64 of 24–64 bytes>`.',
  )
  @IsOptional()
  @IsString()
  @MinLength(MIN_SUPPLIED_SECRET_LENGTH)
  @MaxLength(MAX_SUPPLIED_SECRET_LENGTH)
  secret?: string;

  @Describe(
    'Signature schemes (RFC 0201): absent means `["v1"]`; `["v1", "standard-webhooks-1"]` with a `whsec_` secret adds the Standard Webhooks headers, after one verification request.',
  )
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SIGNATURE_ALGORITHMS)
  @IsString({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  signatureAlgorithms?: string[];
}
