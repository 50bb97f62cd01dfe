import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  assertCommand,
  ENGINE_COMMAND_DATA,
  fireTimerCommandId,
  Topics,
  type FireTimerCommand,
} from '@openwop/contracts';
import { appendToOutbox, ONE_PROCESS_POLL_MS, PollLoop, type OutboxRelay } from '@openwop/platform-db';
import { DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { CLOCK, type Clock } from '../engine.di-tokens';
import { anyTimerDue, claimDueTimers, RUN_TIMER_DUE_TIMES, type RunTimerRow } from './run-timer.store';

/** DI token of {@link RunTimerOptions}. */
export const RUN_TIMER_OPTIONS = Symbol('RUN_TIMER_OPTIONS');

export interface RunTimerOptions {
  /** Mean poll interval (each poll is jittered ±25 %). */
  readonly intervalMs: number;
  /** Due timers claimed per transaction. */
  readonly batchSize: number;
}

/**
 * Reads `ENGINE_TIMER_MS` (default 250 ms; in the one-process host, `ONE_PROCESS_POLL_MS`, since it
 * is told of every due time it writes).
 */
export function runTimerOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  mode: 'embedded' | 'distributed' = 'distributed',
): RunTimerOptions {
  const raw = env.ENGINE_TIMER_MS;
  const fallback = mode === 'embedded' ? ONE_PROCESS_POLL_MS : 250;
  const intervalMs = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(intervalMs) || intervalMs < 1) {
    throw new Error(`ENGINE_TIMER_MS must be a positive integer, got ${raw}`);
  }
  return { intervalMs, batchSize: 50 };
}

/** The principal of timer firings. */
export const RUN_TIMER_PRINCIPAL = 'system:engine-timer';

/**
 * The engine's durable timer (`core.delay`), the same pattern as the interrupt service's: due times
 * live in Postgres (`run_timers`), every engine instance polls (jittered), and a poll claims due rows
 * with `FOR UPDATE SKIP LOCKED`, deletes them and appends their `run.timer` commands to the outbox
 * in one transaction. A process killed at any point either committed that transaction (the outbox
 * delivers the command) or did not (the rows are due again at the next poll, on any instance). The
 * command's id derives from run and key, so the engine decides each firing once.
 */
@Injectable()
export class RunTimerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunTimerService.name);
  private readonly loop: PollLoop;
  private unwatch: (() => void) | undefined;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    @Inject(RUN_TIMER_OPTIONS) private readonly options: RunTimerOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.loop = new PollLoop(
      () => this.tick(),
      options.intervalMs,
      (e: unknown) =>
        this.logger.error(
          `timer poll failed, retrying next poll: ${e instanceof Error ? e.message : String(e)}`,
        ),
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    // A timer this process armed: tick when it is due, not at the next poll.
    this.unwatch = RUN_TIMER_DUE_TIMES.watch((dueAt) =>
      this.loop.dueIn(Date.parse(dueAt) - Date.parse(this.clock.now())),
    );
  }

  onApplicationShutdown(): Promise<void> {
    this.unwatch?.();
    return this.loop.stop();
  }

  /** Sends the firing of every timer due at `now`, batch by batch; returns how many it claimed. */
  async tick(now: string = this.clock.now()): Promise<number> {
    let total = 0;
    for (;;) {
      if (!(await anyTimerDue(this.ds.manager, now))) return total;
      const claimed = await this.ds.transaction(async (manager) => {
        const due = await claimDueTimers(manager, now, this.options.batchSize);
        await appendToOutbox(
          manager,
          due.map((t) => ({ topic: Topics.engineCommands, key: t.runId, value: fireCommand(t, now) })),
        );
        return due.length;
      });
      total += claimed;
      if (claimed > 0) void this.relay.kick();
      if (claimed < this.options.batchSize || this.loop.stopped) return total;
    }
  }
}

function fireCommand(t: RunTimerRow, now: string): FireTimerCommand {
  const command: FireTimerCommand = {
    id: fireTimerCommandId(t.runId, t.timerKey),
    type: 'run.timer',
    occurredAt: now,
    correlationId: t.runId,
    actor: { tenant: t.tenant, principal: RUN_TIMER_PRINCIPAL },
    data: { runId: t.runId, timerKey: t.timerKey },
  };
  return assertCommand(command, ENGINE_COMMAND_DATA);
}
