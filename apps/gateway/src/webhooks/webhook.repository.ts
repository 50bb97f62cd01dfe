import { Inject, Injectable } from '@nestjs/common';
import { DATA_SOURCE } from '@openwop/platform-nest';
import { returnedRows, transaction } from '@openwop/platform-db';
import type { DataSource } from 'typeorm';

/** A subscription as reads show it: never its secret, only the fingerprint. */
export interface WebhookView {
  readonly webhookId: string;
  readonly tenantId: string;
  readonly url: string;
  readonly events: string[];
  readonly tags: string[];
  readonly durable: boolean;
  /** The schemes its deliveries are signed with: `["v1"]`, or `["v1", "standard-webhooks-1"]` (RFC 0201). */
  readonly signatureAlgorithms: string[];
  readonly status: string;
  readonly secretFingerprint: string;
  readonly circuit: string;
  readonly createdAt: string;
}

/** A delivery as the operator routes show it. */
export interface DeliveryView {
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly runId: string;
  readonly eventId: string;
  readonly sequence: number;
  readonly eventType: string;
  readonly status: string;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly deliveredAt: string | null;
}

export interface NewSubscription {
  readonly webhookId: string;
  readonly tenant: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly tags: readonly string[];
  /** The secret sealed under the operator key ring (`v1:<keyId>:<nonce>:<ciphertext>`), never the secret. */
  readonly sealedSecret: string;
  readonly secretFingerprint: string;
  readonly durable: boolean;
  readonly signatureAlgorithms: readonly string[];
  readonly createdBy: string;
}

/** Delivery statuses a listing may filter on. */
export const DELIVERY_STATUSES = ['pending', 'in_flight', 'delivered', 'failed', 'dead', 'skipped'] as const;

/**
 * The webhook tables, every statement bound to the caller's tenant, so another tenant's
 * subscription or delivery reads as absent.
 */
@Injectable()
export class WebhookRepository {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  /**
   * Inserts the subscription unless its tenant already holds `cap` of them; whether it was
   * inserted. Race-free across gateway instances: a transaction-scoped advisory lock per tenant
   * orders the tenant's registrations, and the insert itself is conditional on the count it sees
   * (a statement that starts after the lock sees every registration committed before it), so two
   * registrations of one tenant never both take the last place. Other tenants never wait.
   */
  async insertWithin(s: NewSubscription, cap: number): Promise<boolean> {
    return transaction(this.ds, async (m) => {
      await m.query("SELECT pg_advisory_xact_lock(hashtextextended('webhook_subscriptions:' || $1, 0))", [
        s.tenant,
      ]);
      const inserted = returnedRows(
        await m.query<{ webhook_id: string }[] | [{ webhook_id: string }[], number]>(
          `INSERT INTO webhook_subscriptions (webhook_id, tenant, url, events, tags, secret, secret_fingerprint, durable, created_by, signature_algorithms)
           SELECT $1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $11::jsonb
           WHERE (SELECT count(*) FROM webhook_subscriptions WHERE tenant = $2) < $10
           RETURNING webhook_id`,
          [
            s.webhookId,
            s.tenant,
            s.url,
            JSON.stringify(s.events),
            JSON.stringify(s.tags),
            s.sealedSecret,
            s.secretFingerprint,
            s.durable,
            s.createdBy,
            cap,
            JSON.stringify(s.signatureAlgorithms),
          ],
        ),
      );
      return inserted.length > 0;
    });
  }

  /**
   * Rotates the subscription's secret (v2 webhooks.md §Standard Webhooks "Rotation"): the current
   * secret becomes the previous one, signing beside the new one until `overlapSeconds` from now; a
   * previous secret still in an earlier overlap is dropped (two secrets at most). `mint` gets
   * whether the subscription opted into `standard-webhooks-1` and returns the new secret, sealed,
   * and its fingerprint. The rotated subscription, or `undefined` when `tenant` has none of that id.
   */
  async rotate(
    webhookId: string,
    tenant: string,
    overlapSeconds: number,
    mint: (standardWebhooks: boolean) => { sealed: string; fingerprint: string },
  ): Promise<{ view: WebhookView; previousSecretUntil: string } | undefined> {
    return transaction(this.ds, async (m) => {
      const [locked] = await m.query<{ signature_algorithms: string[] }[]>(
        'SELECT signature_algorithms FROM webhook_subscriptions WHERE webhook_id = $1 AND tenant = $2 FOR UPDATE',
        [webhookId, tenant],
      );
      if (!locked) return undefined;
      const next = mint((locked.signature_algorithms ?? []).includes('standard-webhooks-1'));
      const [row] = returnedRows(
        await m.query<
          | (RawSubscription & { previous_secret_until: Date | string })[]
          | [(RawSubscription & { previous_secret_until: Date | string })[], number]
        >(
          `UPDATE webhook_subscriptions
              SET previous_secret = secret, previous_secret_until = now() + make_interval(secs => $3),
                  secret = $4, secret_fingerprint = $5
            WHERE webhook_id = $1 AND tenant = $2
            RETURNING webhook_id, tenant, url, events, tags, durable, signature_algorithms, status, secret_fingerprint,
                      breaker_phase, created_at, previous_secret_until`,
          [webhookId, tenant, overlapSeconds, next.sealed, next.fingerprint],
        ),
      );
      return row ? { view: viewOf(row), previousSecretUntil: iso(row.previous_secret_until) } : undefined;
    });
  }

  /** Deletes the subscription (its deliveries with it); whether there was one in `tenant`. */
  async delete(webhookId: string, tenant: string): Promise<boolean> {
    const rows = returnedRows(
      await this.ds.query<{ webhook_id: string }[] | [{ webhook_id: string }[], number]>(
        'DELETE FROM webhook_subscriptions WHERE webhook_id = $1 AND tenant = $2 RETURNING webhook_id',
        [webhookId, tenant],
      ),
    );
    return rows.length > 0;
  }

  async find(webhookId: string, tenant: string): Promise<WebhookView | undefined> {
    const rows = await this.ds.query<RawSubscription[]>(
      `${SELECT_SUBSCRIPTION} WHERE webhook_id = $1 AND tenant = $2`,
      [webhookId, tenant],
    );
    return rows[0] ? viewOf(rows[0]) : undefined;
  }

  async list(tenant: string, limit: number): Promise<WebhookView[]> {
    const rows = await this.ds.query<RawSubscription[]>(
      `${SELECT_SUBSCRIPTION} WHERE tenant = $1 ORDER BY created_at, webhook_id LIMIT $2`,
      [tenant, limit],
    );
    return rows.map(viewOf);
  }

  async deliveries(
    tenant: string,
    filter: { status?: string; webhookId?: string; runId?: string; limit: number },
  ): Promise<DeliveryView[]> {
    const where = ['tenant = $1'];
    const params: unknown[] = [tenant];
    for (const [column, value] of [
      ['status', filter.status],
      ['webhook_id', filter.webhookId],
      ['run_id', filter.runId],
    ] as const) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    params.push(filter.limit);
    const rows = await this.ds.query<RawDelivery[]>(
      `SELECT delivery_id, webhook_id, run_id, event_id, sequence, event_type, status, attempts, max_attempts, last_status, last_error,
              created_at, updated_at, delivered_at
       FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY created_at, sequence, delivery_id LIMIT $${params.length}`,
      params,
    );
    return rows.map(deliveryOf);
  }

  /**
   * A dead letter of `tenant` back to pending, due now, with a fresh budget of attempts; the
   * delivery as it now is, or `undefined` when there is no dead letter of that id in the tenant.
   */
  async replay(deliveryId: string, tenant: string): Promise<DeliveryView | undefined> {
    const rows = returnedRows(
      await this.ds.query<RawDelivery[] | [RawDelivery[], number]>(
        `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, due_at = now(), updated_at = now(), claimed_by = NULL
       WHERE delivery_id = $1 AND tenant = $2 AND status IN ('dead', 'failed')
       RETURNING delivery_id, webhook_id, run_id, event_id, sequence, event_type, status, attempts, max_attempts, last_status, last_error,
                 created_at, updated_at, delivered_at`,
        [deliveryId, tenant],
      ),
    );
    const row = rows[0];
    return row ? deliveryOf(row) : undefined;
  }
}

const SELECT_SUBSCRIPTION = `SELECT webhook_id, tenant, url, events, tags, durable, signature_algorithms, status, secret_fingerprint,
  breaker_phase, created_at FROM webhook_subscriptions`;

interface RawSubscription {
  webhook_id: string;
  tenant: string;
  url: string;
  events: string[];
  tags: string[];
  durable: boolean;
  signature_algorithms: string[];
  status: string;
  secret_fingerprint: string;
  breaker_phase: string;
  created_at: Date | string;
}

interface RawDelivery {
  delivery_id: string;
  webhook_id: string;
  run_id: string;
  event_id: string;
  sequence: number;
  event_type: string;
  status: string;
  attempts: number;
  max_attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  delivered_at: Date | string | null;
}

const iso = (v: Date | string): string => new Date(v).toISOString();

function viewOf(r: RawSubscription): WebhookView {
  return {
    webhookId: r.webhook_id,
    tenantId: r.tenant,
    url: r.url,
    events: r.events,
    tags: r.tags,
    durable: r.durable,
    signatureAlgorithms: r.signature_algorithms,
    status: r.status,
    secretFingerprint: r.secret_fingerprint,
    circuit: r.breaker_phase,
    createdAt: iso(r.created_at),
  };
}

function deliveryOf(r: RawDelivery): DeliveryView {
  return {
    deliveryId: r.delivery_id,
    webhookId: r.webhook_id,
    runId: r.run_id,
    eventId: r.event_id,
    sequence: Number(r.sequence),
    eventType: r.event_type,
    status: r.status,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    lastError: r.last_error,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    deliveredAt: r.delivered_at === null ? null : iso(r.delivered_at),
  };
}
