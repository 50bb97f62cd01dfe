import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { createValidationPipe } from '../common/validation.pipe';
import { ListDeliveriesQueryDto } from './webhook-queries.dto';
import { WebhookRepository, type DeliveryView } from './webhook.repository';

/** Route of `POST /v1/webhook-deliveries/{deliveryId}:replay` (the colon is literal, escaped for Express). */
export const REPLAY_DELIVERY_ROUTE = '/v1/webhook-deliveries/:deliveryId\\:replay';

/**
 * The operator's view of deliveries (RFC 0083 dead letters): list them by status, subscription or
 * run (`status=dead` are the dead letters), and replay one: it goes back to pending with a fresh
 * budget of attempts and any notifier instance delivers it.
 */
@Controller()
export class WebhookDeliveriesController {
  constructor(private readonly webhooks: WebhookRepository) {}

  @Get('/v1/webhook-deliveries')
  @RequireScope('webhooks:manage')
  async list(
    @Query(createValidationPipe()) q: ListDeliveriesQueryDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ deliveries: DeliveryView[] }> {
    return {
      deliveries: await this.webhooks.deliveries(caller.tenant, {
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.webhookId !== undefined ? { webhookId: q.webhookId } : {}),
        ...(q.runId !== undefined ? { runId: q.runId } : {}),
        limit: q.limit ?? 100,
      }),
    };
  }

  @Post(REPLAY_DELIVERY_ROUTE)
  @HttpCode(200)
  @RequireScope('webhooks:manage')
  async replay(
    @Param('deliveryId') deliveryId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<DeliveryView> {
    const replayed = await this.webhooks.replay(deliveryId, caller.tenant);
    if (!replayed) throw ApiError.notFound(`No dead or failed delivery ${deliveryId}.`);
    return replayed;
  }
}
