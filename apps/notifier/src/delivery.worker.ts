import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { countWebhookDeliveriesPruned, registerSecret } from '@openwop/observability';
import { PollLoop, transaction } from '@openwop/platform-db';
import {
  createHostResolver,
  DATA_SOURCE,
  HOST_CONFIG,
  readOrCreateKeyFile,
  type HostConfig,
  type HostResolver,
} from '@openwop/platform-nest';
import {
  BEST_EFFORT_RETRY,
  breakerGate,
  breakerRecord,
  deliveryHeaders,
  describeWebhookKeyRing,
  keyRingEncodings,
  loadWebhookSecretKeys,
  nextRetryDelayMs,
  openWebhookSecret,
  previousSecretInOverlap,
  sealWebhookSecret,
  WEBHOOK_SECRET_KEYS_ENV,
  WebhookSecretUnreadable,
  type AttemptOutcome,
  type LoadedWebhookKeyRing,
} from '@openwop/webhook-domain';
import {
  claimDue,
  countSubscriptions,
  lockSecretsToReseal,
  lockSubscription,
  pruneSettled,
  saveBreaker,
  settleAttempt,
  settleLostAttempts,
  writeResealed,
  type ClaimedDelivery,
  type PruneClass,
  type SubscriptionRow,
} from './delivery.store';
import { NOTIFIER_OPTIONS, type NotifierOptions } from './notifier.options';
import { deliverPinned } from './webhook-http.client';

/** DI token of the host resolver (tests swap it). */
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

/** The default resolver: the system's. */
export const hostResolverProvider = {
  provide: HOST_RESOLVER,
  useFactory: (): HostResolver => createHostResolver(),
};

/** DI token of the notifier's {@link LoadedWebhookKeyRing} (ADR 0028). */
export const WEBHOOK_SECRET_KEYS = Symbol('WEBHOOK_SECRET_KEYS');

/** The ring from `OPENWOP_WEBHOOK_SECRET_KEYS`, or the embedded host's generated key file. */
export const webhookSecretKeysProvider = {
  provide: WEBHOOK_SECRET_KEYS,
  inject: [HOST_CONFIG],
  useFactory: (config: HostConfig): LoadedWebhookKeyRing => {
    const loaded = loadWebhookSecretKeys(config, process.env, readOrCreateKeyFile);
    if (loaded.ring) registerSecret(...keyRingEncodings(loaded.ring));
    return loaded;
  },
};

/** Subscriptions resealed per transaction at startup. */
const RESEAL_BATCH = 100;
/** Batches of deletions per status class in one sweep: a sweep stays light; the next one goes on. */
const PRUNE_BATCHES_PER_SWEEP = 10;

/**
 * Makes the attempts. Due deliveries live in Postgres; every notifier instance polls (jittered) and
 * is woken by its consumer, claims a batch with `FOR UPDATE SKIP LOCKED` under a lease, and for
 * each: asks the subscription's circuit breaker, sends (egress re-checked, pinned, no redirects),
 * then records the outcome and the breaker in one transaction. An instance killed mid-attempt
 * leaves a lease that runs out; the next claim (on any instance) makes the next attempt, or, with no
 * attempts left, settles the delivery as failed (best effort) or dead (durable).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Notifier');
  private readonly loop: PollLoop;
  private readonly owner: string;
  private running: Promise<void> | undefined;
  private again = false;
  private nextPruneAt = 0;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(NOTIFIER_OPTIONS) private readonly options: NotifierOptions,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
    @Inject(HOST_CONFIG) config: HostConfig,
    @Inject(WEBHOOK_SECRET_KEYS) private readonly keys: LoadedWebhookKeyRing,
  ) {
    this.owner = `pid:${process.pid}@${config.instanceId}`;
    this.loop = new PollLoop(
      () => this.drain(),
      options.pollMs,
      (e: unknown) =>
        this.logger.error(
          `delivery poll failed, retrying next poll: ${e instanceof Error ? e.message : String(e)}`,
        ),
    );
  }

  /** Reseals what needs it (or refuses to start without a ring while subscriptions exist), then polls. */
  async onApplicationBootstrap(): Promise<void> {
    await this.resealSecrets();
    this.nextPruneAt = Date.now() + this.options.retention.sweepEveryMs * Math.random();
    this.loop.start();
  }

  /**
   * The startup step of ADR 0028: every subscription whose secret is in plain text (written by an
   * earlier build) or sealed under a key that is no longer the ring's first is sealed again under
   * the current key, in batches locked `FOR UPDATE SKIP LOCKED` (two notifiers starting at once
   * share the rows; a row already current is not touched, so the step is idempotent). A value that
   * cannot be opened is logged (by fingerprint) and left as it is: its deliveries fail until the
   * operator restores the key. Without a ring (distributed mode, or embedded on Postgres with no data
   * folder, and no `OPENWOP_WEBHOOK_SECRET_KEYS`) the notifier refuses to start while any
   * subscription exists.
   * @returns how many secrets were resealed.
   */
  async resealSecrets(): Promise<number> {
    const ring = this.keys.ring;
    if (!ring) {
      const n = await countSubscriptions(this.ds.manager);
      if (n > 0)
        throw new Error(
          `${WEBHOOK_SECRET_KEYS_ENV} is not set and ${n} webhook subscription(s) exist. Every gateway and notifier on this database ` +
            `must share the key ring that encrypts webhook secrets at rest: set ${WEBHOOK_SECRET_KEYS_ENV}=<keyId>:<base64 of 32 random bytes> ` +
            '(e.g. k1:$(openssl rand -base64 32)).',
        );
      this.logger.warn(
        `${this.keys.from} and no webhook subscription exists; registrations are refused until it is`,
      );
      return 0;
    }
    this.logger.log(`webhook secret keys from ${this.keys.from}: ${describeWebhookKeyRing(ring)}`);
    const unreadable: string[] = [];
    let plain = 0;
    let older = 0;
    for (;;) {
      const batch = await transaction(this.ds, async (m) => {
        const rows = await lockSecretsToReseal(m, ring.current, unreadable, RESEAL_BATCH);
        for (const r of rows) {
          const binding = { webhookId: r.webhookId, tenant: r.tenant };
          let opened;
          try {
            opened = openWebhookSecret(ring, r.stored, binding);
          } catch (e) {
            if (!(e instanceof WebhookSecretUnreadable)) throw e;
            unreadable.push(r.webhookId);
            this.logger.error(`${e.message} (secret ${r.fingerprint}); left as it is`);
            continue;
          }
          if (
            await writeResealed(m, r.webhookId, r.stored, sealWebhookSecret(ring, opened.secret, binding))
          ) {
            if (opened.keyId === null) plain += 1;
            else older += 1;
          }
        }
        return rows.length;
      });
      if (batch < RESEAL_BATCH) break;
    }
    if (plain + older > 0)
      this.logger.log(
        `webhook secrets resealed under key ${ring.current}: ${plain + older} (${plain} from plain text, ${older} from older keys)`,
      );
    return plain + older;
  }

  /**
   * Deletes settled deliveries past their retention (delivered, failed and skipped after
   * `WEBHOOK_RETAIN_DELIVERED_MS`, dead letters after `WEBHOOK_RETAIN_DEAD_MS`), a bounded number of
   * batches of `FOR UPDATE SKIP LOCKED` deletions, so N instances sweeping at once share the rows.
   * @returns rows deleted.
   */
  async prune(): Promise<number> {
    const { retention } = this.options;
    let total = 0;
    const byStatus = new Map<string, number>();
    for (const [cls, age] of [
      ['settled', retention.settledMs],
      ['dead', retention.deadMs],
    ] as [PruneClass, number][]) {
      for (let i = 0; i < PRUNE_BATCHES_PER_SWEEP && !this.loop.stopped; i++) {
        const counts = await pruneSettled(this.ds.manager, cls, age, retention.batchSize);
        let n = 0;
        for (const [status, c] of counts) {
          byStatus.set(status, (byStatus.get(status) ?? 0) + c);
          n += c;
        }
        total += n;
        if (n < retention.batchSize) break;
      }
    }
    for (const [status, c] of byStatus) countWebhookDeliveriesPruned(status, c);
    if (total > 0)
      this.logger.log(
        `webhook deliveries pruned: ${total} (${[...byStatus].map(([s, c]) => `${s} ${c}`).join(', ')})`,
      );
    return total;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.running;
  }

  /** Wakes the worker now (new deliveries were recorded). */
  kick(): void {
    if (this.loop.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .then(() => undefined)
      .catch((e: unknown) =>
        this.logger.error(`delivery drain failed: ${e instanceof Error ? e.message : String(e)}`),
      )
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Claims and attempts due deliveries until none is due; returns how many attempts it made. */
  async drain(): Promise<number> {
    let total = 0;
    await settleLostAttempts(this.ds.manager);
    if (Date.now() >= this.nextPruneAt) {
      // jittered, so instances do not sweep in step
      this.nextPruneAt = Date.now() + this.options.retention.sweepEveryMs * (0.75 + Math.random() * 0.5);
      await this.prune();
    }
    for (;;) {
      const claimed = await transaction(this.ds, (m) =>
        claimDue(m, this.owner, this.options.leaseMs, this.options.batchSize),
      );
      await Promise.all(claimed.map((d) => this.attempt(d)));
      total += claimed.length;
      if (claimed.length < this.options.batchSize || this.loop.stopped) return total;
    }
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const key = { deliveryId: d.deliveryId, owner: this.owner, attempt: d.attempt };
    const gate = await transaction(this.ds, async (m) => {
      const sub = await lockSubscription(m, d.webhookId);
      if (!sub) return undefined; // unregistered meanwhile: its deliveries went with it
      if (sub.status !== 'active') {
        await settleAttempt(m, key, { status: 'skipped', lastError: 'subscription failed', refund: true });
        return undefined;
      }
      const g = breakerGate(sub.breaker, Date.now(), this.options.breaker);
      if (!g.allow) {
        // Best effort: skipped while the circuit is open. Durable: held until it may probe (RFC 0083).
        await settleAttempt(
          m,
          key,
          sub.durable
            ? { status: 'pending', dueAtMs: g.retryAt, lastError: 'circuit open', refund: true }
            : { status: 'skipped', lastError: 'circuit open', refund: true },
        );
        return undefined;
      }
      if (g.next !== sub.breaker) await saveBreaker(m, sub.webhookId, g.next, false);
      return sub;
    });
    if (!gate) return;
    let secret: string;
    try {
      secret = openWebhookSecret(this.keys.ring, gate.storedSecret, {
        webhookId: gate.webhookId,
        tenant: gate.tenant,
      }).secret;
    } catch (e) {
      if (!(e instanceof WebhookSecretUnreadable)) throw e;
      // The host's fault, not the receiver's: nothing is sent and the breaker is left alone.
      this.logger.error(`${e.message} (secret ${gate.fingerprint})`);
      await this.record(
        d,
        { ok: false, error: `secret unreadable (${e.reason})` },
        gate.durable,
        gate.fingerprint,
        false,
      );
      return;
    }
    const previousSecret = this.previousSecretOf(gate);
    const headers = deliveryHeaders({
      webhookId: d.webhookId,
      deliveryId: d.deliveryId,
      eventType: d.eventType,
      secret,
      ...(previousSecret !== undefined ? { previousSecret } : {}),
      body: d.body,
      attempt: d.attempt,
      nowSeconds: Math.floor(Date.now() / 1000),
      userAgent: this.options.userAgent,
      standardWebhooks: gate.standardWebhooks,
    });
    let outcome: AttemptOutcome;
    try {
      outcome = await deliverPinned(
        { url: gate.url, headers, body: d.body, timeoutMs: this.options.deliveryTimeoutMs },
        { resolve: this.resolve, allowed: this.options.allowedHosts },
      );
    } catch (e) {
      outcome = { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    await this.record(d, outcome, gate.durable, gate.fingerprint);
  }

  /**
   * The secret a rotation replaced, while its overlap lasts (v2 webhooks.md "Rotation"), opened; none
   * after it. One that no longer opens (its key left the ring) is left out, logged: the delivery is
   * then signed with the new secret only.
   */
  private previousSecretOf(sub: SubscriptionRow): string | undefined {
    const stored = previousSecretInOverlap(sub.storedPreviousSecret, sub.previousSecretUntilMs, Date.now());
    if (stored === undefined) return undefined;
    try {
      return openWebhookSecret(this.keys.ring, stored, { webhookId: sub.webhookId, tenant: sub.tenant })
        .secret;
    } catch (e) {
      if (!(e instanceof WebhookSecretUnreadable)) throw e;
      this.logger.error(
        `${e.message} (the previous secret of webhook ${sub.webhookId}); signed with the new one only`,
      );
      return undefined;
    }
  }

  private async record(
    d: ClaimedDelivery,
    outcome: AttemptOutcome,
    durable: boolean,
    fingerprint: string,
    countsForBreaker = true,
  ): Promise<void> {
    const now = Date.now();
    const key = { deliveryId: d.deliveryId, owner: this.owner, attempt: d.attempt };
    const policy = durable ? { ...this.options.durableRetry, maxAttempts: d.maxAttempts } : BEST_EFFORT_RETRY;
    const settled = await transaction(this.ds, async (m) => {
      const sub = await lockSubscription(m, d.webhookId);
      if (!sub) return false;
      if (countsForBreaker) {
        const verdict = breakerRecord(sub.breaker, outcome.ok, now, this.options.breaker);
        await saveBreaker(m, sub.webhookId, verdict.next, verdict.subscriptionFailed);
        if (verdict.subscriptionFailed)
          this.logger.warn(
            `webhook ${d.webhookId} (secret ${fingerprint}) marked failed: too many failures in the window`,
          );
      }
      const lastStatus = outcome.status !== undefined ? { lastStatus: outcome.status } : {};
      if (outcome.ok) return settleAttempt(m, key, { status: 'delivered', ...lastStatus });
      const delay = nextRetryDelayMs(d.attempt, policy, Math.random());
      const next =
        delay === null
          ? { status: durable ? ('dead' as const) : ('failed' as const) }
          : { status: 'pending' as const, dueAtMs: now + delay };
      return settleAttempt(m, key, { ...next, ...lastStatus, lastError: outcome.error });
    });
    const what = outcome.ok ? `delivered (${outcome.status})` : `failed: ${outcome.error}`;
    const line = `webhook ${d.webhookId} (secret ${fingerprint}) delivery ${d.deliveryId} attempt ${d.attempt}/${d.maxAttempts} ${d.eventType} ${what}`;
    if (!settled) this.logger.warn(`${line}; the delivery was no longer ours to record (its lease ran out)`);
    else if (outcome.ok) this.logger.log(line);
    else this.logger.warn(line);
  }
}
