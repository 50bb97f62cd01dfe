import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
import { DATA_SOURCE, HOST_CONFIG, type HostConfig, type HostResolver } from '@openwop/platform-nest';
import { HOST_RESOLVER } from './delivery.worker';
import { NOTIFIER_OPTIONS, type NotifierOptions } from './notifier.options';
import { deliverPinned } from './webhook-http.client';

/** The body `type` of an interrupt notice. */
export const INTERRUPT_NOTICE_TYPE = 'openwop.interrupt.notice';

/** A run's callback as recorded from its `run.started`. */
interface RunCallback {
  readonly runId: string;
  readonly tenant: string;
  readonly url: string;
  readonly major: number;
}

/** A notice to send: the URL and the JSON body. */
export interface InterruptNotice {
  readonly runId: string;
  readonly url: string;
  readonly body: string;
}

/**
 * The body of a notice (interrupt.md §Callback delivery: payload, timing and signing are
 * host-defined). It names the interrupt and the run; it carries no token: the receiver reads the run
 * with its own key (a key holding `approvals:respond` gets the resolving token and URL there) and
 * resolves through the token surface.
 */
export function interruptNoticeBody(event: RunEventDoc, cb: RunCallback, publicUrl: string): string {
  const p = (event.payload ?? {}) as { interruptId?: unknown; kind?: unknown };
  const runUrl = `${publicUrl}${cb.major === 2 ? '' : '/v1'}/runs/${event.runId}`;
  return JSON.stringify({
    type: INTERRUPT_NOTICE_TYPE,
    runId: event.runId,
    tenantId: cb.tenant,
    ...(event.nodeId !== undefined ? { nodeId: event.nodeId } : {}),
    ...(typeof p.interruptId === 'string' ? { interruptId: p.interruptId } : {}),
    ...(typeof p.kind === 'string' ? { kind: p.kind } : {}),
    sequence: event.sequence,
    occurredAt: event.timestamp,
    runUrl,
  });
}

/**
 * Callback delivery (interrupt.md §Callback delivery; v2 webhooks.md §Egress): a run created with a
 * `callbackUrl` (checked by the gateway's egress guard at `createRun`) gets one POST of notice per
 * `interrupt.requested`. Each attempt re-resolves the name, checks every address against the same
 * guard, connects to the checked address and follows no redirect ({@link deliverPinned}). One
 * attempt, unsigned, off the consumer's path: a slow receiver delays no event; a failure is logged.
 */
@Injectable()
export class InterruptCallbacks implements OnApplicationShutdown {
  private readonly logger = new Logger('Notifier');
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(NOTIFIER_OPTIONS) private readonly options: NotifierOptions,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
  ) {}

  /**
   * Records the callbacks of runs that start in `events` and returns the notices their interrupts
   * owe. A batch with neither (the common case) costs no statement.
   */
  async notices(events: readonly RunEventDoc[]): Promise<InterruptNotice[]> {
    const started = events.flatMap((e) => {
      const p = e.payload as { callbackUrl?: unknown; owner?: { tenant?: unknown }; protocolMajor?: unknown };
      return e.type === 'run.started' &&
        typeof p.callbackUrl === 'string' &&
        typeof p.owner?.tenant === 'string'
        ? [
            {
              runId: e.runId,
              tenant: p.owner.tenant,
              url: p.callbackUrl,
              major: p.protocolMajor === 2 ? 2 : 1,
            },
          ]
        : [];
    });
    if (started.length > 0)
      await this.ds.query(
        `INSERT INTO run_callbacks (run_id, tenant, url, protocol_major)
         SELECT s->>'runId', s->>'tenant', s->>'url', (s->>'major')::smallint FROM jsonb_array_elements($1::jsonb) AS s
         ON CONFLICT (run_id) DO NOTHING`,
        [JSON.stringify(started)],
      );
    const requested = events.filter((e) => e.type === 'interrupt.requested');
    if (requested.length === 0) return [];
    const rows = await this.ds.query<
      { run_id: string; tenant: string; url: string; protocol_major: number }[]
    >('SELECT run_id, tenant, url, protocol_major FROM run_callbacks WHERE run_id = ANY($1::text[])', [
      [...new Set(requested.map((e) => e.runId))],
    ]);
    const byRun = new Map(
      rows.map((r) => [
        r.run_id,
        { runId: r.run_id, tenant: r.tenant, url: r.url, major: Number(r.protocol_major) },
      ]),
    );
    return requested.flatMap((e) => {
      const cb = byRun.get(e.runId);
      return cb
        ? [{ runId: e.runId, url: cb.url, body: interruptNoticeBody(e, cb, this.config.publicUrl) }]
        : [];
    });
  }

  /** Sends each notice once, without waiting for it. */
  send(notices: readonly InterruptNotice[]): void {
    for (const n of notices) {
      const attempt = this.attempt(n).finally(() => this.inFlight.delete(attempt));
      this.inFlight.add(attempt);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async attempt(n: InterruptNotice): Promise<void> {
    try {
      const outcome = await deliverPinned(
        {
          url: n.url,
          headers: { 'Content-Type': 'application/json', 'User-Agent': this.options.userAgent },
          body: n.body,
          timeoutMs: this.options.deliveryTimeoutMs,
        },
        { resolve: this.resolve, allowed: this.options.allowedHosts },
      );
      if (outcome.ok) this.logger.log(`interrupt callback of run ${n.runId} delivered (${outcome.status})`);
      else this.logger.warn(`interrupt callback of run ${n.runId} failed: ${outcome.error}`);
    } catch (e) {
      this.logger.warn(
        `interrupt callback of run ${n.runId} failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
}
