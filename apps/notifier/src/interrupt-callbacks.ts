import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { RunEventDoc } from '@openwop/contracts';
import { HOST_CONFIG, type HostConfig, type HostResolver } from '@openwop/platform-nest';
import type { RunCallback } from './delivery.store';
import { HOST_RESOLVER } from './delivery.worker';
import { NOTIFIER_OPTIONS, type NotifierOptions } from './notifier.options';
import { deliverPinned } from './webhook-http.client';

/** The body `type` of an interrupt notice. */
export const INTERRUPT_NOTICE_TYPE = 'openwop.interrupt.notice';

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
    @Inject(NOTIFIER_OPTIONS) private readonly options: NotifierOptions,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
  ) {}

  /**
   * The notices the interrupts requested in `events` owe, given their runs' `callbacks` (recorded and
   * looked up with the batch's delivery targets, in the same statement: `deliveryTargets`).
   */
  notices(events: readonly RunEventDoc[], callbacks: ReadonlyMap<string, RunCallback>): InterruptNotice[] {
    return events.flatMap((e) => {
      const cb = e.type === 'interrupt.requested' ? callbacks.get(e.runId) : undefined;
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
