import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { failRunCommandFor, Topics } from '@openwop/contracts';
import {
  appendToOutbox,
  ONE_PROCESS_POLL_MS,
  PollLoop,
  transaction,
  type OutboxRelay,
} from '@openwop/platform-db';
import { DATA_SOURCE, HOST_CONFIG, OUTBOX_RELAY, type HostConfig } from '@openwop/platform-nest';
import { AgentTurnHandler } from './agent-turn.handler';
import {
  claimTurns,
  onAgentTurnsOwed,
  releaseTurn,
  renewLeases,
  settleTurn,
  type ClaimedTurn,
} from './agent-turn.store';

/** DI token of {@link AgentTurnOptions}. */
export const AGENT_TURN_OPTIONS = Symbol('AGENT_TURN_OPTIONS');

export interface AgentTurnOptions {
  /** Turns this process streams at once; 0: this process runs no agent turns (another role does). */
  readonly concurrency: number;
  /** Mean poll interval (jittered ±25 %); a commit that owes turns wakes this process's worker at once. */
  readonly pollMs: number;
  /** How long a claim holds a turn; renewed while the turn streams. */
  readonly leaseMs: number;
  /** Claims of one turn before its run is failed (each failed claim waits `retryMs` × claims). */
  readonly maxAttempts: number;
  readonly retryMs: number;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${raw}`);
  return n;
}

/**
 * Reads `AGENT_TURN_CONCURRENCY` (64), `AGENT_TURN_POLL_MS` (250; in the one-process host
 * `ONE_PROCESS_POLL_MS`: every turn owed there kicks the worker), `AGENT_TURN_LEASE_MS` (30000).
 */
export function agentTurnOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  mode: 'embedded' | 'distributed' = 'distributed',
): AgentTurnOptions {
  return {
    concurrency: positiveInt(env, 'AGENT_TURN_CONCURRENCY', 64, 0),
    pollMs: positiveInt(env, 'AGENT_TURN_POLL_MS', mode === 'embedded' ? ONE_PROCESS_POLL_MS : 250),
    leaseMs: positiveInt(env, 'AGENT_TURN_LEASE_MS', 30_000, 100),
    maxAttempts: 5,
    retryMs: 1_000,
  };
}

/** The principal of a run failed because its agent turn could not be settled. */
const PRINCIPAL = 'system:engine';

/**
 * Runs owed agent turns (ADR 0037) off the command consumer, so a slow model holds no partition:
 * every engine instance polls `engine_agent_turns` (the {@link PollLoop} of the durable timers,
 * kicked when this process commits an owed turn, or when a slot frees while due turns wait for one), claims due turns with
 * `FOR UPDATE SKIP LOCKED` under a lease, up to `AGENT_TURN_CONCURRENCY` at once, and runs each with
 * {@link AgentTurnHandler.execute}. Leases of streaming turns are renewed on every tick once a
 * third of the lease has passed. A turn that throws is given back with a growing delay; after
 * `maxAttempts` claims its run is failed (`run.fail`), as a dead-lettered `agent.turn` did.
 */
@Injectable()
export class AgentTurnWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AgentTurnWorker.name);
  private readonly loop: PollLoop;
  private readonly owner: string;
  private readonly inFlight = new Map<string, { turn: ClaimedTurn; done: Promise<void> }>();
  private readonly abort = new AbortController();
  private lastRenewal = Date.now();
  /**
   * The last claim filled every free slot, so due turns may be waiting for one: a turn that ends
   * then claims at once. Otherwise a slot that frees waits for the next commit's wake-up or poll,
   * and costs no claiming statement.
   */
  private starved = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    @Inject(AGENT_TURN_OPTIONS) private readonly options: AgentTurnOptions,
    @Inject(HOST_CONFIG) config: HostConfig,
    private readonly handler: AgentTurnHandler,
  ) {
    this.owner = `pid:${process.pid}@${config.instanceId}`;
    this.loop = new PollLoop(
      () => this.tick(),
      options.pollMs,
      (e: unknown) =>
        this.logger.error(
          `agent turn poll failed, retrying next poll: ${e instanceof Error ? e.message : String(e)}`,
        ),
    );
  }

  onApplicationBootstrap(): void {
    if (this.options.concurrency === 0) return;
    this.unsubscribe = onAgentTurnsOwed(() => this.loop.kick());
    this.loop.start();
  }

  /** Stops claiming, aborts the streams in flight and gives their turns back (due at once, for any instance). */
  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.loop.stop();
    this.abort.abort();
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  /** Turns streaming in this process now. */
  get running(): number {
    return this.inFlight.size;
  }

  /** Renews the leases held, then claims due turns into the free slots; returns how many it claimed. */
  async tick(): Promise<number> {
    if (this.inFlight.size > 0 && Date.now() - this.lastRenewal >= this.options.leaseMs / 3) {
      this.lastRenewal = Date.now();
      await renewLeases(this.ds.manager, this.owner, this.options.leaseMs, [...this.inFlight.keys()]);
    }
    let total = 0;
    for (;;) {
      const free = this.options.concurrency - this.inFlight.size;
      if (free <= 0 || !this.loop.active) return total;
      if (this.inFlight.size === 0) this.lastRenewal = Date.now();
      const claimed = await transaction(this.ds, (m) =>
        claimTurns(m, this.owner, this.options.leaseMs, free),
      );
      for (const turn of claimed) this.start(turn);
      total += claimed.length;
      this.starved = claimed.length === free;
      if (claimed.length < free) return total;
    }
  }

  private start(turn: ClaimedTurn): void {
    const done = this.run(turn).finally(() => {
      this.inFlight.delete(turn.turnId);
      if (this.starved) this.loop.kick(); // a slot is free for a turn that waits for one
    });
    this.inFlight.set(turn.turnId, { turn, done });
  }

  private async run(turn: ClaimedTurn): Promise<void> {
    const settle = (m: Parameters<typeof settleTurn>[0]) => settleTurn(m, this.owner, turn);
    try {
      const outcome = await this.handler.execute(turn, settle, this.abort.signal);
      if (outcome === 'taken') this.logger.warn(`agent turn ${turn.turnId}: another claim took it over`);
    } catch (e) {
      if (this.abort.signal.aborted) {
        await transaction(this.ds, (m) => releaseTurn(m, this.owner, turn, 0)).catch(() => undefined);
        return;
      }
      const message = e instanceof Error ? e.message : String(e);
      try {
        if (turn.attempt < this.options.maxAttempts) {
          this.logger.warn(`agent turn ${turn.turnId} failed (claim ${turn.attempt}), retrying: ${message}`);
          await transaction(this.ds, (m) =>
            releaseTurn(m, this.owner, turn, this.options.retryMs * turn.attempt),
          );
          return;
        }
        this.logger.error(
          `agent turn ${turn.turnId} failed ${turn.attempt} times: failing run ${turn.command.data.runId}: ${message}`,
        );
        const fail = failRunCommandFor(
          turn.command,
          turn.command.data.runId,
          `agent turn failed: ${message}`,
          PRINCIPAL,
        );
        await this.relay.transaction(async (m) => {
          if (await settle(m))
            await appendToOutbox(m, [
              { topic: Topics.engineCommands, key: turn.command.data.runId, value: fail },
            ]);
        });
      } catch (inner) {
        // The lease runs out and the next claim retries.
        this.logger.error(
          `agent turn ${turn.turnId}: ${inner instanceof Error ? inner.message : String(inner)}`,
        );
      }
    }
  }
}
