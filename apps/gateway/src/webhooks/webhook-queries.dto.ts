import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_ID_LENGTH } from '@openwop/contracts';
import { DELIVERY_STATUSES } from './webhook.repository';
import { Describe } from '../common/describe.decorator';

/** Query of `DELETE /v1/webhooks/{webhookId}` (webhooks.md §Unregister). */
export class UnregisterWebhookQueryDto {
  @Describe("The key's own tenant (default).")
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  tenantId?: string;
}

/** Query of `GET /v1/webhooks`. */
export class ListWebhooksQueryDto {
  @Describe("The key's own tenant (default).")
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  tenantId?: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit?: number;
}

/** Query of `GET /v1/webhook-deliveries`: `status=dead` lists the dead letters. */
export class ListDeliveriesQueryDto {
  @IsOptional() @IsIn(DELIVERY_STATUSES) status?: string;
  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) webhookId?: string;
  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) runId?: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit?: number;
}
