import { Body, Controller, Delete, Get, HttpCode, Logger, Param, Post, Query } from '@nestjs/common';
import {
  checkSignatureAlgorithms,
  maxWebhooksPerTenant,
  newWebhookSecret,
  rotatedSecret,
  secretFingerprint,
  secretRotationOverlapSeconds,
  SIGNATURE_ALGORITHM,
} from '@openwop/webhook-domain';
import { randomBytes } from 'node:crypto';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { createValidationPipe } from '../common/validation.pipe';
import { IMPLEMENTATION } from '../discovery/discovery.document';
import { ShownOnce } from '../idempotency/shown-once.decorator';
import { RegisterWebhookRequestDto } from './register-webhook.request.dto';
import { WebhookEgressCheck } from './webhook-egress.check';
import { ListWebhooksQueryDto, UnregisterWebhookQueryDto } from './webhook-queries.dto';
import { WebhookRepository, type WebhookView } from './webhook.repository';
import { WebhookSecretSealer } from './webhook-secret.sealer';

/**
 * The answer of a registration. `secret` only when the host generated it, and then only here: a
 * replay of the registration under its `Idempotency-Key` answers the same without it
 * (`@ShownOnce`); a secret the caller supplied is never echoed (v2 webhooks.md §Surfaces).
 * `signatureAlgorithms` is the applied list, present when the request named one (RFC 0201 §B.7).
 */
export interface RegisteredWebhook {
  readonly webhookId: string;
  readonly secret?: string;
  readonly secretFingerprint: string;
  readonly signatureAlgorithm: string;
  readonly signatureAlgorithms?: readonly string[];
  readonly tenantId: string;
  readonly durable: boolean;
}

/**
 * Webhook subscriptions (webhooks.md): register, list, read, unregister, each in the caller's
 * tenant (`tenantId`, when given, must be the key's own: `403 forbidden` otherwise). The caller may
 * supply the secret; otherwise the host generates one and returns it once, at registration. Reads,
 * logs and idempotent replays name it by fingerprint. `signatureAlgorithms: ["v1",
 * "standard-webhooks-1"]` with a `whsec_` secret opts the subscription into Standard Webhooks
 * signing (RFC 0201), after one verification request the endpoint must answer. A
 * tenant holds at most `WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT` subscriptions (default 100;
 * discovery `extensions.limits.maxWebhookSubscriptionsPerTenant`): past it, `422
 * webhook_limit_exceeded`.
 */
/**
 * The answer of a rotation: the new secret, shown here only (a replay under the same
 * `Idempotency-Key` answers without it), and until when the previous secret still signs.
 */
export interface RotatedWebhookSecret {
  readonly webhookId: string;
  readonly secret?: string;
  readonly secretFingerprint: string;
  readonly overlapSeconds: number;
  readonly previousSecretExpiresAt: string;
}

@Controller()
export class WebhooksController {
  private readonly logger = new Logger('Webhooks');
  private readonly cap = maxWebhooksPerTenant();
  private readonly overlapSeconds = secretRotationOverlapSeconds();

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly egress: WebhookEgressCheck,
    private readonly sealer: WebhookSecretSealer,
  ) {}

  @Post('/v1/webhooks')
  @HttpCode(201)
  @RequireScope('webhooks:manage')
  @ShownOnce('secret')
  async register(
    @Body(createValidationPipe()) body: RegisterWebhookRequestDto,
    @CurrentCaller() caller: Caller,
  ): Promise<RegisteredWebhook> {
    const tenant = tenantOf(body.tenantId, caller);
    const schemes = checkSignatureAlgorithms(body.signatureAlgorithms, body.secret);
    if ('refusal' in schemes)
      throw ApiError.validation(
        `The registration is refused: ${schemes.refusal}.`,
        [{ path: 'signatureAlgorithms', message: schemes.refusal }],
        { field: 'signatureAlgorithms' },
      );
    await this.egress.assertRegistrable(body.url);
    // RFC 0201 §D: only an opted-in registration is verified, before anything is persisted.
    if (schemes.standardWebhooks)
      await this.egress.verifyEndpoint(
        body.url,
        body.secret!,
        `${IMPLEMENTATION.name}/${IMPLEMENTATION.version}`,
      );
    const supplied = body.secret !== undefined;
    const secret = body.secret ?? newWebhookSecret();
    const fingerprint = secretFingerprint(secret);
    const webhookId = `wh_${randomBytes(12).toString('hex')}`;
    const durable = body.durable === true;
    const inserted = await this.webhooks.insertWithin(
      {
        webhookId,
        tenant,
        url: body.url,
        events: [...new Set(body.events)],
        tags: [...new Set(body.tags ?? [])],
        sealedSecret: this.sealer.seal(secret, { webhookId, tenant }),
        secretFingerprint: fingerprint,
        durable,
        signatureAlgorithms: schemes.applied,
        createdBy: caller.principal,
      },
      this.cap,
    );
    if (!inserted) {
      throw new ApiError(
        'webhook_limit_exceeded',
        `Tenant ${tenant} already holds ${this.cap} webhook subscriptions, the most this host allows; unregister one first.`,
        { limit: this.cap, scope: 'tenant' },
      );
    }
    this.logger.log(
      `webhook ${webhookId} registered in tenant ${tenant} by ${caller.principal} (${supplied ? 'supplied' : 'generated'} secret ${fingerprint}, ${schemes.applied.join('+')}, ${durable ? 'durable' : 'best effort'})`,
    );
    return {
      webhookId,
      ...(supplied ? {} : { secret }),
      secretFingerprint: fingerprint,
      signatureAlgorithm: SIGNATURE_ALGORITHM,
      ...(body.signatureAlgorithms !== undefined ? { signatureAlgorithms: schemes.applied } : {}),
      tenantId: tenant,
      durable,
    };
  }

  @Get('/v1/webhooks')
  @RequireScope('webhooks:manage')
  async list(
    @Query(createValidationPipe()) q: ListWebhooksQueryDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ webhooks: WebhookView[] }> {
    return { webhooks: await this.webhooks.list(tenantOf(q.tenantId, caller), q.limit ?? 100) };
  }

  @Get('/v1/webhooks/:webhookId')
  @RequireScope('webhooks:manage')
  async get(@Param('webhookId') webhookId: string, @CurrentCaller() caller: Caller): Promise<WebhookView> {
    const found = await this.webhooks.find(webhookId, caller.tenant);
    if (!found) throw notFound(webhookId);
    return found;
  }

  /**
   * `rotateWebhookSecret` (v2 webhooks.md §Standard Webhooks "Rotation"; v1 `openapi.yaml` since
   * CHANGELOG 2.37.0): a new secret, generated by the host in the subscription's form, returned
   * once. For `WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS` (default 24 h) deliveries keep
   * `OpenWOP-Signature` on the previous secret and carry a `webhook-signature` entry for each;
   * afterwards only the new secret signs. Not advertised: `secretRotation` is a facet of the v2
   * `webhooks` record, which this host does not advertise (docs/conformance.md).
   */
  @Post('/v1/webhooks/:webhookId/rotate-secret')
  @HttpCode(200)
  @RequireScope('webhooks:manage')
  @ShownOnce('secret')
  async rotateSecret(
    @Param('webhookId') webhookId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<RotatedWebhookSecret> {
    let secret = '';
    const rotated = await this.webhooks.rotate(webhookId, caller.tenant, this.overlapSeconds, (sw) => {
      secret = rotatedSecret(sw);
      return {
        sealed: this.sealer.seal(secret, { webhookId, tenant: caller.tenant }),
        fingerprint: secretFingerprint(secret),
      };
    });
    if (!rotated) throw notFound(webhookId);
    this.logger.log(
      `webhook ${webhookId} secret rotated in tenant ${caller.tenant} by ${caller.principal} (now ${rotated.view.secretFingerprint}; the previous one signs too until ${rotated.previousSecretUntil})`,
    );
    return {
      webhookId,
      secret,
      secretFingerprint: rotated.view.secretFingerprint,
      overlapSeconds: this.overlapSeconds,
      previousSecretExpiresAt: rotated.previousSecretUntil,
    };
  }

  @Delete('/v1/webhooks/:webhookId')
  @HttpCode(204)
  @RequireScope('webhooks:manage')
  async unregister(
    @Param('webhookId') webhookId: string,
    @Query(createValidationPipe()) q: UnregisterWebhookQueryDto,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    const tenant = tenantOf(q.tenantId, caller);
    if (!(await this.webhooks.delete(webhookId, tenant))) throw notFound(webhookId);
    this.logger.log(`webhook ${webhookId} unregistered in tenant ${tenant} by ${caller.principal}`);
  }
}

/** The tenant a request names, which must be the caller's (webhooks.md: the caller MUST be a member). */
function tenantOf(tenantId: string | undefined, caller: Caller): string {
  if (tenantId !== undefined && tenantId !== caller.tenant) {
    throw new ApiError('forbidden', 'tenantId must be the tenant of the API key.', { tenantId });
  }
  return caller.tenant;
}

function notFound(webhookId: string): ApiError {
  return new ApiError('subscription_not_found', `Webhook ${webhookId} not found.`);
}
