import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { PendingInterrupt } from '@openwop/interrupt-domain';
import {
  appendToOutbox,
  dropHeldAppends,
  flushHeldAppends,
  holdAppends,
  PollLoop,
  type OutboxRelay,
} from '@openwop/platform-db';
import { DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { ConversationRepository } from './common/conversation.repository';
import { ClaimInterruptHandler } from './claim-interrupt/claim-interrupt.handler';
import { claimExpiryId } from './common/claim-events.outbox';
import { InterruptRepository, type DueColumn } from './common/interrupt.repository';
import { silenceAudits } from './converse/conversation.gate';
import { EscalateInterruptHandler } from './escalate-interrupt/escalate-interrupt.handler';
import { ExpireInterruptHandler } from './expire-interrupt/expire-interrupt.handler';
import {
  CLOCK,
  INTERRUPT_TIMER_OPTIONS,
  type Clock,
  type InterruptTimerOptions,
} from './interrupt.di-tokens';
import { INTERRUPT_DUE_TIMES } from './common/interrupt-due-times';

/** How long a row that failed alone is left out of the timer's claims before it is tried again. */
export const FAILED_ROW_BACKOFF_MS = 30_000;

/** The principal of expirations the timer decides. */
export const TIMER_PRINCIPAL = 'system:interrupt-timer';

/** Applies one claimed row inside the caller's transaction; returns whether it decided anything. */
type ApplyDue = (manager: EntityManager, state: PendingInterrupt, now: string) => Promise<unknown>;

/**
 * The durable timer. Deadlines, escalation steps (ADR 0034) and claim leases (ADR 0035) live in
 * Postgres (`interrupts.deadline_at`, `escalation_due_at`, `claim_expires_at`), so nothing is lost when a process
 * dies: every instance polls ({@link PollLoop}, jittered), claims due pending rows with
 * `FOR UPDATE SKIP LOCKED` so instances never take the same row, and decides them in one
 * transaction with their outbox rows (`run.resume`, `run.escalate`, audit facts): a batch of
 * `INTERRUPT_TIMER_BATCH` rows (default 200) costs three statements (claim, one upsert of the
 * states, one insert of the outbox rows), whatever its size. A batch that fails
 * is retried row by row, each in its own transaction, so one row that cannot be decided (a poison
 * row) is logged and left for the next tick while the others fire; rows stay due until a
 * transaction that decides them commits.
 */
@Injectable()
export class InterruptTimerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InterruptTimerService.name);
  private readonly loop: PollLoop;
  private unwatch: (() => void) | undefined;
  /** Rows that failed alone (interrupt id → epoch ms they may be tried again), per due column. */
  private readonly backoff = new Map<string, number>();

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(INTERRUPT_TIMER_OPTIONS) private readonly options: InterruptTimerOptions,
    private readonly interrupts: InterruptRepository,
    private readonly expirer: ExpireInterruptHandler,
    private readonly escalator: EscalateInterruptHandler,
    private readonly conversations: ConversationRepository,
    private readonly claims: ClaimInterruptHandler,
  ) {
    this.loop = new PollLoop(
      () => this.tick(),
      options.intervalMs,
      (e: unknown) =>
        this.logger.error(
          `timer tick failed, retrying next tick: ${e instanceof Error ? e.message : String(e)}`,
        ),
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    // A due time this process wrote: tick then, not at the next poll.
    this.unwatch = INTERRUPT_DUE_TIMES.watch((dueAt) =>
      this.loop.dueIn(Date.parse(dueAt) - Date.parse(this.clock.now())),
    );
  }

  onApplicationShutdown(): Promise<void> {
    this.unwatch?.();
    return this.loop.stop();
  }

  /**
   * Fires every escalation step and expires every interrupt due now, batch by batch; returns how
   * many rows it decided.
   */
  async tick(): Promise<number> {
    if (!(await this.anythingDue(this.clock.now()))) return 0;
    // Escalation steps first: every step due is decided, in order, before the expiry; the expiry
    // itself decides any still due (a row that became due between the passes) before its default.
    const escalated = await this.fireDue('escalation_due_at', (m, state, now) =>
      this.escalator.escalate(
        m,
        state,
        {
          commandId: `escalate:${state.interrupt.interruptId}:${state.escalated ?? 0}`,
          now,
          tenant: state.interrupt.tenant,
          principal: TIMER_PRINCIPAL,
        },
        {
          id: `escalate:${state.interrupt.interruptId}:${state.escalated ?? 0}`,
          correlationId: state.interrupt.runId,
        },
      ),
    );
    // A lapsed lease is told once (`interrupt.released`, reason `expired`) before a deadline ends the wait.
    const lapsed = await this.fireDue('claim_expires_at', (m, state, now) => {
      const { interruptId, runId, tenant } = state.interrupt;
      const id = claimExpiryId(interruptId, state.claim?.expiresAt ?? '');
      return this.claims.expireLapsed(
        m,
        state,
        { commandId: id, now, tenant, principal: TIMER_PRINCIPAL },
        { id, correlationId: runId },
      );
    });
    const expired = await this.fireDue('deadline_at', (m, state, now) => {
      const { interruptId, runId, tenant } = state.interrupt;
      return this.expirer.expire(
        m,
        state,
        { commandId: `expire:${interruptId}`, now, tenant, principal: TIMER_PRINCIPAL },
        { id: `expire:${interruptId}`, correlationId: runId },
      );
    });
    const now = this.clock.now();
    const audited = await this.ds.transaction(async (manager) => {
      const audits = await silenceAudits(this.conversations, manager, now, this.options.batchSize);
      await appendToOutbox(manager, audits);
      return audits.length;
    });
    if (audited > 0) void this.relay.kick();
    return escalated + lapsed + expired;
  }

  /**
   * Claims and applies due rows batch by batch, a batch in one transaction. A batch that fails is
   * retried row by row (each its own transaction); a row that fails alone is logged and left out of
   * this instance's claims for {@link FAILED_ROW_BACKOFF_MS}, so it never holds back the others
   * (nor floods the log); it stays due in Postgres, so any instance tries it again later.
   */
  private async fireDue(column: DueColumn, apply: ApplyDue): Promise<number> {
    const what =
      column === 'deadline_at' ? 'expiry' : column === 'claim_expires_at' ? 'claim expiry' : 'escalation';
    const { batchSize } = this.options;
    const skip = new Set<string>();
    const wall = Date.now();
    for (const [key, until] of this.backoff) {
      if (until <= wall) this.backoff.delete(key);
      else if (key.startsWith(`${column}:`)) skip.add(key.slice(column.length + 1));
    }
    let total = 0;
    // Where the last batch ended: the next one's scan starts there (see claimDueBatch).
    let from: string | undefined;
    for (;;) {
      const now = this.clock.now();
      let claimed: number;
      let decided: number;
      try {
        let reached: string | undefined;
        claimed = decided = await this.ds.transaction(async (manager) => {
          const batch = await this.interrupts.claimDueBatch(manager, column, now, batchSize, [...skip], from);
          const { due } = batch;
          reached = batch.reached;
          // The batch's states and outbox rows are written at its end, one statement each.
          this.interrupts.holdSaves(manager);
          holdAppends(manager);
          try {
            for (const state of due) await apply(manager, state, now);
            await this.interrupts.flushSaves(manager);
            await flushHeldAppends(manager);
          } catch (e) {
            this.interrupts.dropSaves(manager);
            dropHeldAppends(manager);
            throw e;
          }
          return due.length;
        });
        from = reached;
      } catch (e) {
        this.logger.warn(`${what} batch failed, retrying its rows one by one: ${messageOf(e)}`);
        const ids = await this.interrupts.dueIds(this.ds.manager, column, now, batchSize, [...skip]);
        claimed = ids.length;
        decided = 0;
        for (const id of ids) {
          try {
            decided += await this.ds.transaction(async (manager) => {
              const [state] = await this.interrupts.claimDueBy(manager, column, now, 1, [], id);
              if (!state) return 0;
              await apply(manager, state, now);
              return 1;
            });
          } catch (rowError) {
            skip.add(id);
            this.backoff.set(`${column}:${id}`, Date.now() + FAILED_ROW_BACKOFF_MS);
            this.logger.error(
              `${what} of interrupt ${id} failed, retried in ${FAILED_ROW_BACKOFF_MS / 1000} s: ${messageOf(rowError)}`,
            );
          }
        }
      }
      total += decided;
      if (decided > 0) void this.relay.kick();
      if (claimed < batchSize || !this.loop.active) return total;
    }
  }

  /**
   * One statement, no transaction: is any deadline, escalation step, lapsed claim or silence audit due? Most ticks find nothing,
   * and then cost this probe instead of two transactions.
   */
  private async anythingDue(now: string): Promise<boolean> {
    const [row] = await this.ds.query<{ due: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM interrupts WHERE status = 'pending' AND deadline_at <= $1::timestamptz)
           OR EXISTS (SELECT 1 FROM interrupts WHERE status = 'pending' AND escalation_due_at <= $1::timestamptz)
           OR EXISTS (SELECT 1 FROM interrupts WHERE status = 'pending' AND claim_expires_at <= $1::timestamptz)
           OR EXISTS (SELECT 1 FROM interrupt_conversations WHERE status = 'open' AND silence_due_at <= $1::timestamptz) AS due`,
      [now],
    );
    return row?.due === true;
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
