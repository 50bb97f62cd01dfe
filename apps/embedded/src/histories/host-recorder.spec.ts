import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  Topics,
  type CommandEnvelope,
  type CommandReply,
  type ForkMode,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { EngineModule } from '@openwop/engine';
import {
  asJson,
  currentVersions,
  decideStep,
  firstDifference,
  HISTORY_FORMAT,
  newStores,
  remember,
  type HistoryStep,
  type RecordedHistory,
  type StepInput,
  type Stores,
} from '@openwop/histories';
import { InterruptModule } from '@openwop/interrupt';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { listenToDeciders, type TappedCall } from './decision-tap.spec';

const TENANT = 't1';
const OWNER = 'owner';
/** Where every scenario's clock starts; each command it sends moves it one second on. */
export const EPOCH = Date.parse('2026-11-21T09:00:00.000Z');

/** Sets the process's clock (the host's `new Date()`, `Date.now()` and its clocks read it). */
export type SetClock = (epochMs: number) => void;

/**
 * Records histories (ADR 0031) from the real host: the engine's and the interrupt service's Nest
 * modules in one process, on the in-process bus and a fresh Postgres database, driven through their
 * command seam as the gateway drives them. The services decide, store and send follow-ups as they
 * do in production; the recorder only hears, through the decider tap, which command each decider
 * was given and what it answered, in the order the services asked, and writes that down. Each
 * step's stored state is the document of what it decided (checked against the decision the host
 * got, step by step), and at the end of a scenario against the rows the services wrote.
 */
export class HostRecorder {
  private calls: TappedCall[] = [];
  /**
   * The ids of the commands on the engine's and the interrupt service's topics so far (the
   * recorder's and the services' own): quiet means each has a dedupe row (was decided).
   */
  private readonly sent = new Set<string>();

  private constructor(
    private readonly db: TestDatabase,
    private readonly platform: Platform,
    private readonly app: INestApplicationContext,
    private readonly setClock: SetClock,
  ) {}

  /** Starts the host (engine + interrupt service) on a new database, with the clock at {@link EPOCH}. */
  static async start(setClock: SetClock): Promise<HostRecorder> {
    setClock(EPOCH);
    const db = await createTestDatabase('histories');
    const platform = await startPlatform(
      readHostConfig('embedded', {
        DATABASE_URL: db.url,
        OPENWOP_DATA_DIR: 'memory',
        INTERRUPT_TIMER_MS: '50',
      }),
    );
    const app = await NestFactory.createApplicationContext(
      rootModule(platform, [EngineModule, InterruptModule]),
      { logger: ['error'] },
    );
    await app.init();
    const recorder = new HostRecorder(db, platform, app, setClock);
    await platform.bus.subscribe({
      group: 'history-recorder',
      topics: [Topics.engineCommands, Topics.interruptCommands],
      handler: async (m) => {
        recorder.sent.add((m.value as CommandEnvelope).id);
      },
    });
    return recorder;
  }

  async close(): Promise<void> {
    listenToDeciders(undefined);
    await this.app.close();
    await this.platform.close();
    await this.db.drop();
  }

  /** Records one scenario: `drive` sends its commands through a {@link ScenarioDriver}. */
  async record(
    scenario: string,
    description: string,
    drive: (driver: ScenarioDriver) => Promise<void>,
  ): Promise<RecordedHistory> {
    await this.quiet(scenario);
    this.calls = [];
    listenToDeciders((call) => this.calls.push(call));
    const driver = new ScenarioDriver(this, scenario);
    try {
      await drive(driver);
      await this.quiet(scenario);
    } finally {
      listenToDeciders(undefined);
    }
    const steps = await stepsOf(scenario, this.calls);
    await this.checkStored(scenario, steps);
    return asJson({
      format: HISTORY_FORMAT,
      scenario,
      description,
      versions: currentVersions(),
      steps,
    }) as RecordedHistory;
  }

  setTime(epochMs: number): void {
    this.setClock(epochMs);
  }

  /** Sends a command through the seam of `topic` and returns its reply's data; a refusal throws. */
  async send<T>(topic: string, key: string, command: CommandEnvelope): Promise<T> {
    const reply = await this.platform.bus.request<CommandReply<T>>(
      topic,
      { key, value: command },
      { timeoutMs: 30_000 },
    );
    if (!reply.ok) throw new Error(`${command.type} ${command.id} refused: ${JSON.stringify(reply.error)}`);
    this.sent.add(command.id);
    return reply.data;
  }

  /**
   * Waits until the host has nothing left to do: no outbox row unsent, no agent turn owed, and every
   * command sent (by the recorder or the services) decided by its consumer, on three reads in a row.
   */
  async quiet(what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let quietReads = 0;
    for (;;) {
      const [row] = await this.platform.dataSource.query<
        { outbox: number; turns: number; decided: string[] }[]
      >(
        `SELECT (SELECT count(*)::int FROM outbox) AS outbox,
                (SELECT count(*)::int FROM engine_agent_turns) AS turns,
                (SELECT coalesce(array_agg(message_id), '{}') FROM processed_messages
                  WHERE message_id = ANY($1::text[])) AS decided`,
        [[...this.sent]],
      );
      const idle = row!.outbox === 0 && row!.turns === 0 && row!.decided.length >= this.sent.size;
      quietReads = idle ? quietReads + 1 : 0;
      if (quietReads >= 3) return;
      if (performance.now() > deadline)
        throw new Error(`${what}: the host did not settle within ${timeoutMs} ms (${JSON.stringify(row)})`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  /** Polls `probe` (real time, whatever the host's clock says) until it answers. */
  async until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  query<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.platform.dataSource.query<T[]>(sql, params);
  }

  /**
   * The recording agrees with what the services stored: each aggregate's last recorded state is its
   * row, each run's recorded events are its log, each conversation's recorded turns are its turn rows.
   */
  private async checkStored(scenario: string, steps: readonly HistoryStep[]): Promise<void> {
    const last = new Map<string, HistoryStep>();
    const events = new Map<string, unknown[]>();
    const turns = new Map<string, unknown[]>();
    for (const s of steps) {
      last.set(`${s.stream} ${s.id}`, s);
      if (s.stream === 'run') events.set(s.id, [...(events.get(s.id) ?? []), ...s.decision.events]);
      if (s.stream === 'conversation') turns.set(s.id, [...(turns.get(s.id) ?? []), ...s.turns]);
    }
    const differ = (what: string, recorded: unknown, stored: unknown) => {
      const d = firstDifference(asJson(recorded), asJson(stored));
      if (d)
        throw new Error(
          `${scenario}: the recording and the host differ on ${what} at ${d.path || '/'}: recorded ` +
            `${JSON.stringify(d.recorded)}, stored ${JSON.stringify(d.replayed)}`,
        );
    };
    for (const s of last.values()) {
      const [row] =
        s.stream === 'run'
          ? await this.query<{ state: object }>('SELECT state FROM engine_runs WHERE run_id = $1', [s.id])
          : s.stream === 'interrupt'
            ? await this.query<{ state: object }>('SELECT state FROM interrupts WHERE interrupt_id = $1', [
                s.id,
              ])
            : await this.query<{ state: object }>(
                'SELECT state FROM interrupt_conversations WHERE interrupt_id = $1',
                [s.id],
              );
      differ(`the stored state of ${s.stream} ${s.id}`, s.state, row?.state ?? null);
    }
    for (const [runId, recorded] of events) {
      const rows = await this.query<{ event: unknown }>(
        'SELECT event FROM engine_run_events WHERE run_id = $1 ORDER BY sequence',
        [runId],
      );
      differ(
        `the event log of run ${runId}`,
        recorded,
        rows.map((r) => r.event),
      );
    }
    for (const [interruptId, recorded] of turns) {
      const rows = await this.query<{ turn: unknown }>(
        `SELECT t.turn FROM interrupt_conversation_turns t JOIN interrupt_conversations c USING (conversation_id)
          WHERE c.interrupt_id = $1 ORDER BY t.turn_index`,
        [interruptId],
      );
      differ(
        `the turn rows of conversation ${interruptId}`,
        recorded,
        rows.map((r) => r.turn),
      );
    }
  }
}

/** What a scenario does: the commands a caller (the gateway, a person, a webhook) sends, in order. */
export class ScenarioDriver {
  private n = 0;
  private now = EPOCH;

  constructor(
    private readonly host: HostRecorder,
    private readonly scenario: string,
  ) {
    host.setTime(EPOCH);
  }

  /** The next command's envelope; the clock moves one second on. */
  private envelope(
    type: string,
    correlationId: string,
    data: Record<string, unknown>,
    principal: string,
  ): CommandEnvelope {
    this.now += 1000;
    this.host.setTime(this.now);
    this.n += 1;
    return {
      id: `${this.scenario}:cmd-${this.n}`,
      type,
      occurredAt: new Date(this.now).toISOString(),
      correlationId,
      actor: { tenant: TENANT, principal },
      data,
    };
  }

  private async settle(): Promise<void> {
    await this.host.quiet(this.scenario);
  }

  /** `workflow.register` of the tenant's own workflow (an agent node's workflow is not a seeded fixture). */
  async register(definition: WorkflowDefinition): Promise<void> {
    await this.host.send(
      Topics.engineCommands,
      definition.id,
      this.envelope('workflow.register', definition.id, { definition }, OWNER),
    );
    await this.settle();
  }

  /** `run.start`, then whatever follows it (an interrupt opens, agents answer). */
  async start(runId: string, workflowId: string, inputs: Record<string, unknown> = {}): Promise<void> {
    await this.host.send(
      Topics.engineCommands,
      runId,
      this.envelope('run.start', runId, { runId, workflowId, inputs }, OWNER),
    );
    await this.settle();
  }

  /** `interrupt.resolve` of the gate `nodeId` waits at, then the run's resume. */
  async resolve(runId: string, nodeId: string, resumeValue: unknown, principal = 'alice'): Promise<void> {
    await this.host.send(
      Topics.interruptCommands,
      runId,
      this.envelope('interrupt.resolve', runId, { runId, nodeId, resumeValue, via: 'api' }, principal),
    );
    await this.settle();
  }

  /** A person's turn, or close, in the conversation the run waits on (`interrupt.resolve` with a ConversationResolve). */
  async converse(
    runId: string,
    nodeId: string,
    resolve: Record<string, unknown>,
    principal = 'alice',
  ): Promise<void> {
    await this.resolve(runId, nodeId, resolve, principal);
  }

  /** Lets the clock pass `runId`'s interrupt deadline; the interrupt service's durable timer expires it. */
  async expire(runId: string): Promise<void> {
    const [row] = await this.host.query<{ deadline: Date | null }>(
      `SELECT deadline_at AS deadline FROM interrupts WHERE run_id = $1 AND status = 'pending'`,
      [runId],
    );
    if (!row?.deadline)
      throw new Error(`${this.scenario}: run ${runId} waits on no interrupt with a deadline`);
    this.now = Math.max(this.now, row.deadline.getTime()) + 1000;
    this.host.setTime(this.now);
    await this.host.until(`the timer to expire the interrupt of ${runId}`, async () => {
      const [r] = await this.host.query<{ status: string }>(
        `SELECT status FROM interrupts WHERE run_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [runId],
      );
      return r?.status === 'expired' ? true : undefined;
    });
    await this.settle();
  }

  /** `run.cancel`, as the gateway sends it: to the interrupt service, which forwards it to the engine. */
  async cancel(runId: string, reason: string): Promise<void> {
    await this.host.send(
      Topics.interruptCommands,
      runId,
      this.envelope('run.cancel', runId, { runId, reason }, OWNER),
    );
    await this.settle();
  }

  /** `run.fork` of `sourceRunId` from `fromSeq`, by a caller who may answer interrupts. */
  async fork(runId: string, sourceRunId: string, fromSeq: number, mode: ForkMode): Promise<void> {
    await this.host.send(
      Topics.engineCommands,
      runId,
      this.envelope('run.fork', runId, { runId, sourceRunId, mode, fromSeq, callerMayResolve: true }, OWNER),
    );
    await this.settle();
  }

  /** The status the engine stored for `runId`. */
  async runStatus(runId: string): Promise<string | undefined> {
    const [row] = await this.host.query<{ status: string }>(
      `SELECT state->>'status' AS status FROM engine_runs WHERE run_id = $1`,
      [runId],
    );
    return row?.status;
  }
}

/**
 * The steps of a history from the decider calls the host made, in order. Each step's state is
 * decided again on the states recorded so far (the replay's own `decideStep`), which must give the
 * decision the host got: so the state written down is the one the host held after the step.
 */
async function stepsOf(scenario: string, calls: readonly TappedCall[]): Promise<HistoryStep[]> {
  const stores: Stores = newStores();
  const steps: HistoryStep[] = [];
  const conversationOf = new Map<string, string>(); // conversationId → interruptId
  let lastOpened: string | undefined;
  const add = async (input: StepInput, real: unknown): Promise<void> => {
    const decided = await decideStep(input, stores);
    const d = firstDifference(asJson(real), asJson(decided.decision));
    if (d)
      throw new Error(
        `${scenario}: step ${steps.length} (${input.stream} ${input.id}) decided on the recorded states ` +
          `differs from the host's decision at ${d.path || '/'}: host ${JSON.stringify(d.recorded)}, ` +
          `recorded states ${JSON.stringify(d.replayed)}`,
      );
    const step = asJson(
      input.stream === 'run'
        ? { ...input, decision: decided.decision, state: decided.state }
        : input.stream === 'interrupt'
          ? { ...input, events: decided.decision, state: decided.state }
          : { ...input, events: decided.decision, turns: decided.turns ?? [], state: decided.state },
    ) as HistoryStep;
    steps.push(step);
    remember(step, stores);
  };
  for (const call of calls) {
    switch (call.stream) {
      case 'run': {
        const { state: _state, ...decision } = call.decision as { state: unknown };
        await add({ stream: 'run', id: call.command.runId, command: call.command as never }, decision);
        break;
      }
      case 'interrupt': {
        const command = call.command as {
          type: string;
          interrupt?: { interruptId: string };
          interruptId?: string;
        };
        const prior = call.prior as { status: string; interrupt?: { interruptId: string } };
        const id = command.interrupt?.interruptId ?? prior.interrupt?.interruptId ?? command.interruptId;
        if (!id) throw new Error(`${scenario}: an interrupt decision (${command.type}) of no interrupt`);
        if (command.type === 'OpenInterrupt') lastOpened = id;
        await add({ stream: 'interrupt', id, command: command as never }, call.events);
        break;
      }
      case 'opened': {
        if (!lastOpened) throw new Error(`${scenario}: a conversation opened before any interrupt`);
        const payload = call.opened.payload as { conversationId?: string } | undefined;
        if (payload?.conversationId) conversationOf.set(payload.conversationId, lastOpened);
        await add({ stream: 'conversation', id: lastOpened, opened: call.opened }, []);
        break;
      }
      case 'conversation': {
        // The engine's run decider opens conversations through the conversation decider: part of its own step.
        if (call.command.type === 'OpenConversation') break;
        const prior = call.prior as { conversationId?: string };
        const id = prior.conversationId && conversationOf.get(prior.conversationId);
        if (!id)
          throw new Error(
            `${scenario}: a conversation decision (${call.command.type}) of no held conversation`,
          );
        await add({ stream: 'conversation', id, command: call.command as never }, call.events);
        break;
      }
    }
  }
  return steps;
}
