import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { appendToOutbox, PollLoop, type OutboxRelay } from '@openwop/platform-db';
import { DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { ConversationRepository } from './common/conversation.repository';
import { InterruptRepository } from './common/interrupt.repository';
import { silenceAudits } from './converse/conversation.gate';
import { ExpireInterruptHandler } from './expire-interrupt/expire-interrupt.handler';
import {
  CLOCK,
  INTERRUPT_TIMER_OPTIONS,
  type Clock,
  type InterruptTimerOptions,
} from './interrupt.di-tokens';

/** The principal of expirations the timer decides. */
export const TIMER_PRINCIPAL = 'system:interrupt-timer';

/**
 * The durable timer. Deadlines live in Postgres (`interrupts.deadline_at`), so nothing is lost when
 * a process dies: every instance polls ({@link PollLoop}, jittered), claims due pending rows with
 * `FOR UPDATE SKIP LOCKED` so instances never take the same row, and expires them in one
 * transaction with their `run.resume` outbox rows. A failed tick is logged and retried by the
 * next one: the rows stay pending until a tick commits.
 */
@Injectable()
export class InterruptTimerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InterruptTimerService.name);
  private readonly loop: PollLoop;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(INTERRUPT_TIMER_OPTIONS) private readonly options: InterruptTimerOptions,
    private readonly interrupts: InterruptRepository,
    private readonly expirer: ExpireInterruptHandler,
    private readonly conversations: ConversationRepository,
  ) {
    this.loop = new PollLoop(() => this.tick(), options.intervalMs, (e: unknown) =>
      this.logger.error(`timer tick failed, retrying next tick: ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** Expires every interrupt due now, batch by batch; returns how many it expired. */
  async tick(): Promise<number> {
    let total = 0;
    for (;;) {
      const now = this.clock.now();
      if (!(await this.anythingDue(now))) return total;
      const claimed = await this.ds.transaction(async (manager) => {
        const due = await this.interrupts.claimDue(manager, now, this.options.batchSize);
        for (const state of due) {
          const { interruptId, runId, tenant } = state.interrupt;
          await this.expirer.expire(
            manager,
            state,
            { commandId: `expire:${interruptId}`, now, tenant, principal: TIMER_PRINCIPAL },
            { id: `expire:${interruptId}`, correlationId: runId },
          );
        }
        return due.length;
      });
      const audited = await this.ds.transaction(async (manager) => {
        const audits = await silenceAudits(this.conversations, manager, now, this.options.batchSize);
        await appendToOutbox(manager, audits);
        return audits.length;
      });
      total += claimed;
      if (claimed > 0 || audited > 0) void this.relay.kick();
      if (claimed < this.options.batchSize || !this.loop.active) return total;
    }
  }

  /**
   * One statement, no transaction: is any deadline or silence audit due? Most ticks find nothing,
   * and then cost this probe instead of two transactions.
   */
  private async anythingDue(now: string): Promise<boolean> {
    const [row] = await this.ds.query<{ due: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM interrupts WHERE status = 'pending' AND deadline_at <= $1::timestamptz)
           OR EXISTS (SELECT 1 FROM interrupt_conversations WHERE status = 'open' AND silence_due_at <= $1::timestamptz) AS due`,
      [now],
    );
    return row?.due === true;
  }
}
