import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { PollLoop, transaction } from '@openwop/platform-db';
import {
  createHostResolver,
  DATA_SOURCE,
  HOST_CONFIG,
  type HostConfig,
  type HostResolver,
} from '@openwop/platform-nest';
import {
  BEST_EFFORT_RETRY,
  breakerGate,
  breakerRecord,
  deliveryHeaders,
  nextRetryDelayMs,
  type AttemptOutcome,
} from '@openwop/webhook-domain';
import {
  claimDue,
  lockSubscription,
  saveBreaker,
  settleAttempt,
  settleLostAttempts,
  type ClaimedDelivery,
} from './delivery.store';
import { NOTIFIER_OPTIONS, type NotifierOptions } from './notifier.options';
import { deliverPinned } from './webhook-http.client';

/** DI token of the host resolver (tests swap it). */
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

/** The default resolver: the system's, with `WEBHOOK_TEST_DNS` overrides. */
export const hostResolverProvider = {
  provide: HOST_RESOLVER,
  useFactory: (): HostResolver => createHostResolver(process.env),
};

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

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(NOTIFIER_OPTIONS) private readonly options: NotifierOptions,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
    @Inject(HOST_CONFIG) config: HostConfig,
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

  onApplicationBootstrap(): void {
    this.loop.start();
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
    const headers = deliveryHeaders({
      webhookId: d.webhookId,
      deliveryId: d.deliveryId,
      eventType: d.eventType,
      secret: gate.secret,
      body: d.body,
      attempt: d.attempt,
      nowSeconds: Math.floor(Date.now() / 1000),
      userAgent: this.options.userAgent,
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

  private async record(
    d: ClaimedDelivery,
    outcome: AttemptOutcome,
    durable: boolean,
    fingerprint: string,
  ): Promise<void> {
    const now = Date.now();
    const key = { deliveryId: d.deliveryId, owner: this.owner, attempt: d.attempt };
    const policy = durable ? { ...this.options.durableRetry, maxAttempts: d.maxAttempts } : BEST_EFFORT_RETRY;
    const settled = await transaction(this.ds, async (m) => {
      const sub = await lockSubscription(m, d.webhookId);
      if (!sub) return false;
      const verdict = breakerRecord(sub.breaker, outcome.ok, now, this.options.breaker);
      await saveBreaker(m, sub.webhookId, verdict.next, verdict.subscriptionFailed);
      if (verdict.subscriptionFailed)
        this.logger.warn(
          `webhook ${d.webhookId} (secret ${fingerprint}) marked failed: too many failures in the window`,
        );
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
