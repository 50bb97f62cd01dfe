import type { EntityManager } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
import { returnedRows } from '@openwop/platform-db';
import {
  CLOSED_BREAKER,
  deliveryBody,
  deliveryIdOf,
  runTagsOf,
  STANDARD_WEBHOOKS_ALGORITHM,
  subscriptionMatches,
  type BreakerState,
  type RunScope,
  type SubscriptionFilter,
} from '@openwop/webhook-domain';

/** A subscription as the notifier needs it. */
export interface SubscriptionRow extends SubscriptionFilter {
  readonly url: string;
  /** The secret as stored: sealed (`v1:…`, ADR 0028) or, written by an earlier build, plain text; opened at delivery. */
  readonly storedSecret: string;
  /**
   * The secret a rotation replaced, as stored (sealed like `storedSecret`), and the end of its
   * overlap: while it lasts, deliveries are signed with both (v2 webhooks.md "Rotation").
   */
  readonly storedPreviousSecret?: string;
  readonly previousSecretUntilMs?: number;
  readonly fingerprint: string;
  readonly durable: boolean;
  /** Opted into `standard-webhooks-1` at registration (RFC 0201): the secret is `whsec_…`. */
  readonly standardWebhooks: boolean;
  readonly status: string;
  readonly createdAtMs: number;
  readonly breaker: BreakerState;
}

/** A claimed delivery. */
export interface ClaimedDelivery {
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly eventType: string;
  readonly body: string;
  /** This attempt's number (1-based). */
  readonly attempt: number;
  readonly maxAttempts: number;
}

/** A run's callback (interrupt.md §Callback delivery), recorded from its `run.started`. */
export interface RunCallback {
  readonly runId: string;
  readonly tenant: string;
  readonly url: string;
  readonly major: number;
}

/**
 * Where a batch of run events may have to be delivered: each run's scope, the subscriptions of their
 * tenants, and the callbacks of the runs whose interrupts the batch requests.
 */
export interface DeliveryTargets {
  readonly scopes: ReadonlyMap<string, RunScope>;
  readonly subscriptions: readonly SubscriptionRow[];
  readonly callbacks: ReadonlyMap<string, RunCallback>;
}

/** The callbacks `run.started` events of `events` carry. */
function startedCallbacks(events: readonly RunEventDoc[]): RunCallback[] {
  return events.flatMap((e) => {
    const p = e.payload as { callbackUrl?: unknown; owner?: { tenant?: unknown }; protocolMajor?: unknown };
    return e.type === 'run.started' &&
      typeof p.callbackUrl === 'string' &&
      typeof p.owner?.tenant === 'string'
      ? [{ runId: e.runId, tenant: p.owner.tenant, url: p.callbackUrl, major: p.protocolMajor === 2 ? 2 : 1 }]
      : [];
  });
}

/**
 * The run scope of the notifier: a `run.started` records its tenant (`owner.tenant`) and tags
 * (`metadata.tags`); later events read them back. A run the notifier never saw start (its group
 * joined later) falls back to the engine's own row for the tenant, with no tags.
 *
 * One statement, outside any transaction: it records the starts of `events` (idempotent: the first
 * write of a run wins) and answers one row per (run, active subscription of the run's tenant). A
 * tenant with no subscription, the common case, answers no row, and then nothing else is sent. A
 * crash after it leaves the starts recorded; the redelivered batch records nothing twice.
 */
export async function deliveryTargets(
  m: EntityManager,
  events: readonly RunEventDoc[],
): Promise<DeliveryTargets> {
  if (events.length === 0) return { scopes: new Map(), subscriptions: [], callbacks: new Map() };
  const started = new Map<string, { runId: string; tenant: string; tags: string[] }>();
  for (const e of events) {
    if (e.type !== 'run.started' || started.has(e.runId)) continue;
    const tenant = (e.payload as { owner?: { tenant?: unknown } } | null)?.owner?.tenant;
    if (typeof tenant !== 'string') continue;
    started.set(e.runId, { runId: e.runId, tenant, tags: runTagsOf(e.payload) });
  }
  // Callbacks are recorded and looked up in the same statement: a batch without any costs nothing more.
  const callbacksStarted = startedCallbacks(events);
  const requestedRuns = [
    ...new Set(events.filter((e) => e.type === 'interrupt.requested').map((e) => e.runId)),
  ];
  const rows = await m.query<
    (Partial<RawSubscription> & {
      scope_run_id: string | null;
      scope_tenant: string;
      scope_tags: string[];
      callbacks: { run_id: string; tenant: string; url: string; protocol_major: number }[];
    })[]
  >(
    `WITH started AS (SELECT s->>'runId' AS run_id, s->>'tenant' AS tenant, s->'tags' AS tags FROM jsonb_array_elements($1::jsonb) AS s),
    recorded AS (INSERT INTO webhook_runs (run_id, tenant, tags) SELECT run_id, tenant, tags FROM started ON CONFLICT (run_id) DO NOTHING),
    cb_started AS (SELECT s->>'runId' AS run_id, s->>'tenant' AS tenant, s->>'url' AS url, (s->>'major')::smallint AS protocol_major
      FROM jsonb_array_elements($3::jsonb) AS s),
    cb_recorded AS (INSERT INTO run_callbacks (run_id, tenant, url, protocol_major) SELECT run_id, tenant, url, protocol_major FROM cb_started
      ON CONFLICT (run_id) DO NOTHING),
    cbs AS (SELECT coalesce(jsonb_agg(jsonb_build_object('run_id', c.run_id, 'tenant', c.tenant, 'url', c.url, 'protocol_major', c.protocol_major)), '[]'::jsonb) AS callbacks
      FROM (SELECT run_id, tenant, url, protocol_major FROM run_callbacks WHERE run_id = ANY($4::text[])
            UNION ALL SELECT run_id, tenant, url, protocol_major FROM cb_started WHERE run_id = ANY($4::text[])) c),
    known AS (SELECT run_id, tenant, tags FROM webhook_runs WHERE run_id = ANY($2::text[])),
    scope AS (
      SELECT run_id, tenant, tags FROM known
      UNION ALL SELECT run_id, tenant, tags FROM started s WHERE NOT EXISTS (SELECT 1 FROM known k WHERE k.run_id = s.run_id)
      UNION ALL SELECT e.run_id, e.tenant, '[]'::jsonb FROM engine_runs e
        WHERE e.run_id = ANY($2::text[]) AND NOT EXISTS (SELECT 1 FROM known k WHERE k.run_id = e.run_id)
          AND NOT EXISTS (SELECT 1 FROM started s WHERE s.run_id = e.run_id)),
    targets AS (SELECT sc.run_id AS scope_run_id, sc.tenant AS scope_tenant, sc.tags AS scope_tags, ${SUBSCRIPTION_COLUMNS('w')}
      FROM scope sc JOIN webhook_subscriptions w ON w.tenant = sc.tenant AND w.status = 'active')
    SELECT cbs.callbacks, targets.* FROM cbs LEFT JOIN targets ON true`,
    [
      JSON.stringify([...started.values()]),
      [...new Set(events.map((e) => e.runId))],
      JSON.stringify(callbacksStarted),
      requestedRuns,
    ],
  );
  const scopes = new Map<string, RunScope>();
  const subscriptions = new Map<string, SubscriptionRow>();
  const callbacks = new Map<string, RunCallback>();
  for (const c of rows[0]?.callbacks ?? []) {
    callbacks.set(c.run_id, {
      runId: c.run_id,
      tenant: c.tenant,
      url: c.url,
      major: Number(c.protocol_major),
    });
  }
  for (const r of rows) {
    if (r.scope_run_id === null) continue; // the row of no target: only the callbacks
    if (!scopes.has(r.scope_run_id))
      scopes.set(r.scope_run_id, { tenant: r.scope_tenant, tags: r.scope_tags });
    const sub = r as RawSubscription;
    if (!subscriptions.has(sub.webhook_id)) subscriptions.set(sub.webhook_id, subscriptionOf(sub));
  }
  return { scopes, subscriptions: [...subscriptions.values()], callbacks };
}

/**
 * Records the deliveries `events` owe: one row per (matching subscription, event), keyed by a
 * deterministic id so an event consumed twice (a redelivery after a crash) is recorded once. A
 * subscription hears only events of its own tenant's runs, and only those after it registered.
 * @returns how many rows were new.
 */
export async function recordDeliveries(
  m: EntityManager,
  events: readonly RunEventDoc[],
  { scopes, subscriptions: subs }: DeliveryTargets,
  durableAttempts: number,
): Promise<number> {
  if (events.length === 0 || subs.length === 0) return 0;
  let recorded = 0;
  for (const e of events) {
    const scope = scopes.get(e.runId);
    if (!scope) continue;
    const at = Date.parse(e.timestamp);
    for (const sub of subs) {
      if (!subscriptionMatches(sub, scope, e.type) || !(at >= sub.createdAtMs)) continue;
      const rows = await m.query<unknown[]>(
        `INSERT INTO webhook_deliveries (delivery_id, webhook_id, tenant, run_id, event_id, sequence, event_type, body, status, max_attempts, due_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, now())
         ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id`,
        [
          deliveryIdOf(sub.webhookId, e.eventId),
          sub.webhookId,
          sub.tenant,
          e.runId,
          e.eventId,
          e.sequence,
          e.type,
          deliveryBody(e, sub.tenant),
          sub.durable ? durableAttempts : 1,
        ],
      );
      recorded += rows.length;
    }
  }
  return recorded;
}

/**
 * Claims due deliveries for `owner`: pending ones whose time came, and attempts whose lease ran
 * out with attempts left (the instance that made them died). `FOR UPDATE SKIP LOCKED`: two
 * instances never claim one row, so each attempt is made once.
 */
export async function claimDue(
  m: EntityManager,
  owner: string,
  leaseMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const rows = returnedRows(
    await m.query<RawClaim[] | [RawClaim[], number]>(
      `UPDATE webhook_deliveries d
        SET status = 'in_flight', attempts = d.attempts + 1, due_at = now() + ($2 * interval '1 millisecond'), claimed_by = $1, updated_at = now()
      WHERE d.delivery_id IN (
        SELECT delivery_id FROM webhook_deliveries
         WHERE status IN ('pending', 'in_flight') AND due_at <= now() AND (status = 'pending' OR attempts < max_attempts)
         ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING d.delivery_id, d.webhook_id, d.event_type, d.body, d.attempts, d.max_attempts`,
      [owner, leaseMs, limit],
    ),
  );
  return rows.map((r) => ({
    deliveryId: r.delivery_id,
    webhookId: r.webhook_id,
    eventType: r.event_type,
    body: r.body,
    attempt: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
  }));
}

/** Attempts lost with their process and no attempts left: failed (best effort) or dead (durable). */
export async function settleLostAttempts(m: EntityManager): Promise<number> {
  const rows = returnedRows(
    await m.query<unknown[] | [unknown[], number]>(
      `UPDATE webhook_deliveries SET status = CASE WHEN max_attempts > 1 THEN 'dead' ELSE 'failed' END,
            last_error = 'attempt lost: its notifier stopped before it reported', updated_at = now()
      WHERE status = 'in_flight' AND due_at <= now() AND attempts >= max_attempts
      RETURNING delivery_id`,
    ),
  );
  return rows.length;
}

/** The subscription of a delivery, locked for the breaker's update. */
export async function lockSubscription(
  m: EntityManager,
  webhookId: string,
): Promise<SubscriptionRow | undefined> {
  const rows = await m.query<RawSubscription[]>(`${SELECT_SUBSCRIPTION} WHERE webhook_id = $1 FOR UPDATE`, [
    webhookId,
  ]);
  return rows[0] ? subscriptionOf(rows[0]) : undefined;
}

export async function saveBreaker(
  m: EntityManager,
  webhookId: string,
  b: BreakerState,
  failed: boolean,
): Promise<void> {
  await m.query(
    `UPDATE webhook_subscriptions SET breaker_phase = $2, consecutive_failures = $3, breaker_since = $4, window_started_at = $5,
            window_failures = $6, status = CASE WHEN $7 THEN 'failed' ELSE status END
      WHERE webhook_id = $1`,
    [webhookId, b.phase, b.consecutiveFailures, ts(b.since), ts(b.windowStartedAt), b.windowFailures, failed],
  );
}

/**
 * Writes how attempt `attempt` of a delivery ended, if the delivery is still ours (a lease that ran
 * out may have passed it to another instance, whose word then counts).
 */
export async function settleAttempt(
  m: EntityManager,
  d: { deliveryId: string; owner: string; attempt: number },
  next: {
    status: 'delivered' | 'pending' | 'failed' | 'dead' | 'skipped';
    dueAtMs?: number;
    lastStatus?: number;
    lastError?: string;
    refund?: boolean;
  },
): Promise<boolean> {
  const rows = returnedRows(
    await m.query<unknown[] | [unknown[], number]>(
      `UPDATE webhook_deliveries
        SET status = $4, due_at = COALESCE($5::timestamptz, due_at), last_status = $6, last_error = $7, updated_at = now(),
            delivered_at = CASE WHEN $4 = 'delivered' THEN now() ELSE delivered_at END,
            attempts = CASE WHEN $8 THEN attempts - 1 ELSE attempts END
      WHERE delivery_id = $1 AND claimed_by = $2 AND attempts = $3 AND status = 'in_flight'
      RETURNING delivery_id`,
      [
        d.deliveryId,
        d.owner,
        d.attempt,
        next.status,
        ts(next.dueAtMs ?? null),
        next.lastStatus ?? null,
        next.lastError ?? null,
        next.refund === true,
      ],
    ),
  );
  return rows.length > 0;
}

/** A subscription whose stored secret is plain text or sealed under a key other than `currentKeyId`. */
export interface SecretToReseal {
  readonly webhookId: string;
  readonly tenant: string;
  readonly stored: string;
  readonly fingerprint: string;
}

/**
 * Up to `limit` subscriptions whose secret is not sealed under `currentKeyId`, locked (`FOR UPDATE
 * SKIP LOCKED`: two notifiers starting at once reseal disjoint rows), except `skip` (rows that
 * could not be opened). Call inside a transaction with {@link writeResealed}.
 */
export async function lockSecretsToReseal(
  m: EntityManager,
  currentKeyId: string,
  skip: readonly string[],
  limit: number,
): Promise<SecretToReseal[]> {
  const rows = await m.query<
    { webhook_id: string; tenant: string; secret: string; secret_fingerprint: string }[]
  >(
    `SELECT webhook_id, tenant, secret, secret_fingerprint FROM webhook_subscriptions
      WHERE left(secret, length($1)) <> $1 AND NOT (webhook_id = ANY($2::text[]))
      ORDER BY webhook_id LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [`v1:${currentKeyId}:`, [...skip], limit],
  );
  return rows.map((r) => ({
    webhookId: r.webhook_id,
    tenant: r.tenant,
    stored: r.secret,
    fingerprint: r.secret_fingerprint,
  }));
}

/** Replaces a stored secret by its reseal, only if it is still the value read (`previous`). */
export async function writeResealed(
  m: EntityManager,
  webhookId: string,
  previous: string,
  sealed: string,
): Promise<boolean> {
  const rows = returnedRows(
    await m.query<unknown[] | [unknown[], number]>(
      'UPDATE webhook_subscriptions SET secret = $3 WHERE webhook_id = $1 AND secret = $2 RETURNING webhook_id',
      [webhookId, previous, sealed],
    ),
  );
  return rows.length > 0;
}

/** How many subscriptions exist (any tenant, any status). */
export async function countSubscriptions(m: EntityManager): Promise<number> {
  const rows = await m.query<{ n: string | number }[]>('SELECT count(*) AS n FROM webhook_subscriptions');
  return Number(rows[0]?.n ?? 0);
}

/** Settled statuses the retention sweep deletes, with the age each is kept for. */
export type PruneClass = 'settled' | 'dead';

const PRUNE_STATUSES: Record<PruneClass, readonly string[]> = {
  settled: ['delivered', 'failed', 'skipped'],
  dead: ['dead'],
};

/**
 * Deletes up to `limit` delivery rows of `cls` that settled (`updated_at`) more than `olderThanMs`
 * ago; rows another transaction holds (a replay, a claim) are skipped, never waited for. Pending and
 * in-flight rows are never candidates.
 * @returns the rows deleted, by status.
 */
export async function pruneSettled(
  m: EntityManager,
  cls: PruneClass,
  olderThanMs: number,
  limit: number,
): Promise<Map<string, number>> {
  const rows = returnedRows(
    await m.query<{ status: string }[] | [{ status: string }[], number]>(
      `DELETE FROM webhook_deliveries WHERE delivery_id IN (
         SELECT delivery_id FROM webhook_deliveries
          WHERE status = ANY($1::text[]) AND updated_at < now() - ($2 * interval '1 millisecond')
          LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING status`,
      [[...PRUNE_STATUSES[cls]], olderThanMs, limit],
    ),
  );
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return counts;
}

const ts = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const ms = (v: Date | string | null): number | null => (v === null ? null : new Date(v).getTime());

const SUBSCRIPTION_COLUMNS = (t: string) =>
  [
    'webhook_id',
    'tenant',
    'url',
    'events',
    'tags',
    'secret',
    'secret_fingerprint',
    'durable',
    'status',
    'created_at',
    'breaker_phase',
    'consecutive_failures',
    'breaker_since',
    'window_started_at',
    'window_failures',
    'signature_algorithms',
    'previous_secret',
    'previous_secret_until',
  ]
    .map((c) => `${t}.${c}`)
    .join(', ');

const SELECT_SUBSCRIPTION = `SELECT ${SUBSCRIPTION_COLUMNS('webhook_subscriptions')} FROM webhook_subscriptions`;

interface RawSubscription {
  webhook_id: string;
  tenant: string;
  url: string;
  events: string[];
  tags: string[];
  secret: string;
  secret_fingerprint: string;
  durable: boolean;
  status: string;
  created_at: Date | string;
  breaker_phase: string;
  consecutive_failures: number;
  breaker_since: Date | string | null;
  window_started_at: Date | string | null;
  window_failures: number;
  signature_algorithms: string[] | null;
  previous_secret: string | null;
  previous_secret_until: Date | string | null;
}

interface RawClaim {
  delivery_id: string;
  webhook_id: string;
  event_type: string;
  body: string;
  attempts: number;
  max_attempts: number;
}

function subscriptionOf(r: RawSubscription): SubscriptionRow {
  const phase = r.breaker_phase === 'open' || r.breaker_phase === 'half-open' ? r.breaker_phase : 'closed';
  return {
    webhookId: r.webhook_id,
    tenant: r.tenant,
    events: r.events,
    tags: r.tags,
    url: r.url,
    storedSecret: r.secret,
    ...(r.previous_secret !== null && r.previous_secret_until !== null
      ? { storedPreviousSecret: r.previous_secret, previousSecretUntilMs: ms(r.previous_secret_until)! }
      : {}),
    fingerprint: r.secret_fingerprint,
    durable: r.durable,
    standardWebhooks: (r.signature_algorithms ?? []).includes(STANDARD_WEBHOOKS_ALGORITHM),
    status: r.status,
    createdAtMs: new Date(r.created_at).getTime(),
    breaker: {
      ...CLOSED_BREAKER,
      phase,
      consecutiveFailures: Number(r.consecutive_failures),
      since: ms(r.breaker_since),
      windowStartedAt: ms(r.window_started_at),
      windowFailures: Number(r.window_failures),
    },
  };
}
