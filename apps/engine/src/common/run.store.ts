import type { EntityManager } from 'typeorm';
import {
  assertCommand,
  assertRunEvent,
  INTERRUPT_COMMAND_DATA,
  Topics,
  ENGINE_COMMAND_DATA,
  type AgentTurnCommand,
  type EngineCommand,
  type OpenInterruptCommand,
  type ResolveInterruptCommand,
  type RunEventDoc,
  type WorkflowDefinition,
  upcastRunEvent,
} from '@openwop/contracts';
import {
  publicRunStatus,
  runStateDocument,
  runStateFromDocument,
  type FollowUp,
  type RunDecision,
  type RunRecord,
  type RunState,
} from '@openwop/engine-domain';
import { annotateActiveSpan, interruptAttributes } from '@openwop/observability';
import {
  appendToOutbox,
  DecisionProjection,
  holdWrite,
  PROJECTED_IN_DECISION,
  ReadAhead,
  takeReadAhead,
  type OutboxMessage,
  type ReadAheadPart,
} from '@openwop/platform-db';
import { childRunMessages } from '../child-runs/child-run.messages';
import { decidedAt } from './command-context';
import { syncRunTimer } from '../timers/run-timer.store';
import { oweAgentTurns } from '../agent-turn/agent-turn.store';

/**
 * The engine's row of a run, locked, for the first statement of a decision another step of the
 * same transaction starts (in one process, the interrupt service's decision of a resolve the engine
 * decides through, ADR 0038): its {@link loadRunForUpdate} takes it from there (ADR 0039).
 */
export const ENGINE_RUN_READ_AHEAD: ReadAheadPart = {
  table: 'engine_runs',
  reads: ['engine_runs'],
  select: (runId) => `(SELECT state FROM engine_runs WHERE run_id = ${runId} FOR UPDATE)`,
};

/**
 * The rows later steps of an engine decision read, in the decision's first statement: in one
 * process, the run's projected row (ADR 0039, the projection applied in the decision).
 */
const AHEAD_OF_ENGINE = ['runs'] as const;

/** A start's too: the run's interrupts, for the opens it decides through (one process). */
const AHEAD_OF_START = ['runs', 'interrupts'] as const;

/**
 * Loads a run's engine state, locking its row until the transaction ends (commands of a run are
 * decided one at a time); from what the transaction's first statement read ahead, when it did.
 */
export async function loadRunForUpdate(manager: EntityManager, runId: string): Promise<RunState> {
  const ahead = takeReadAhead<object>(manager, ENGINE_RUN_READ_AHEAD.table, runId);
  if (ahead) return runStateFromDocument(ahead.value ?? undefined);
  const more = ReadAhead.columns(manager, AHEAD_OF_ENGINE, '$1');
  const rows = await manager.query<({ state: object } & Record<string, unknown>)[]>(
    `SELECT state${more.sql} FROM engine_runs WHERE run_id = $1 FOR UPDATE`,
    [runId],
  );
  more.keep(rows[0], runId);
  return runStateFromDocument(rows[0]?.state);
}

/**
 * A start's two reads in one statement: the run's engine state, locked as {@link loadRunForUpdate}
 * locks it, and `tenant`'s own registration of the workflow, if it has one.
 */
export async function loadRunForStart(
  manager: EntityManager,
  runId: string,
  tenant: string,
  workflowId: string,
): Promise<{ state: RunState; registered: WorkflowDefinition | undefined }> {
  const more = ReadAhead.columns(manager, AHEAD_OF_START, '$1');
  const [row] = await manager.query<
    ({ state: object | null; definition: WorkflowDefinition | null } & Record<string, unknown>)[]
  >(
    `WITH run AS (SELECT state FROM engine_runs WHERE run_id = $1 FOR UPDATE)
     SELECT (SELECT state FROM run) AS state,
       (SELECT definition FROM workflows WHERE tenant = $2 AND workflow_id = $3) AS definition${more.sql}`,
    [runId, tenant, workflowId],
  );
  more.keep(row, runId);
  return { state: runStateFromDocument(row?.state), registered: row?.definition ?? undefined };
}

/** Loads a run's engine state without locking it (a read of another run's state). */
export async function loadRun(manager: EntityManager, runId: string): Promise<RunState> {
  const rows = await manager.query<{ state: object }[]>('SELECT state FROM engine_runs WHERE run_id = $1', [
    runId,
  ]);
  return runStateFromDocument(rows[0]?.state);
}

/**
 * A run's log as the engine recorded it, in sequence order: `0..lastSequence` of the run's state.
 * Bridge for one release: a run that an engine of the previous release went on writing after the
 * migration copied the log (a rolling upgrade) lacks those events here; they are read from the
 * projection (`run_events`, same database) until the next release copies them over for good.
 */
export async function loadRunLog(
  manager: EntityManager,
  runId: string,
  lastSequence: number,
): Promise<RunEventDoc[]> {
  const own = await manager.query<{ event: RunEventDoc }[]>(
    'SELECT event FROM engine_run_events WHERE run_id = $1 ORDER BY sequence',
    [runId],
  );
  if (own.length === lastSequence + 1) return own.map((r) => upcastRunEvent(r.event));
  const projected = await manager.query<{ doc: RunEventDoc }[]>(
    'SELECT doc FROM run_events WHERE run_id = $1 AND sequence <> ALL($2::integer[]) ORDER BY sequence',
    [runId, own.map((r) => r.event.sequence)],
  );
  return [...own.map((r) => r.event), ...projected.map((r) => r.doc)]
    .map(upcastRunEvent)
    .sort((a, b) => a.sequence - b.sequence);
}

/**
 * Commits a decision inside the caller's transaction: the run's new state, its events in the engine's
 * own log, in one process their projection (the run's snapshot and event list, ADR 0039), then the
 * outbox rows —
 * the `interrupt.open` command first, so the interrupt service always holds an interrupt before any
 * reader of the run log can see it pending, then the run events, each checked against the wire schema
 * (marked when projected here, so the projector's consumer does not apply them again).
 */
export async function commitDecision(
  manager: EntityManager,
  prior: RunState,
  decision: RunDecision,
  command: EngineCommand,
): Promise<void> {
  if (decision.events.length === 0) return;
  const next = decision.state as RunRecord;
  // The state and the engine's own copy of the run log (ADR 0008: what it answers `run.fork` from)
  // are held: they go out with the decision's closing statement (ADR 0039).
  await holdWrite(
    manager,
    prior.status === 'none'
      ? {
          sql: 'INSERT INTO engine_runs (run_id, tenant, workflow_id, state, last_sequence) VALUES ($1, $2, $3, $4::jsonb, $5)',
          params: [
            next.runId,
            next.tenant,
            next.workflowId,
            JSON.stringify(runStateDocument(next)),
            next.lastSequence,
          ],
          tables: ['engine_runs'],
        }
      : {
          sql: 'UPDATE engine_runs SET state = $2::jsonb, last_sequence = $3, updated_at = now() WHERE run_id = $1',
          params: [next.runId, JSON.stringify(runStateDocument(next)), next.lastSequence],
          tables: ['engine_runs'],
        },
  );
  await holdWrite(manager, {
    sql: `INSERT INTO engine_run_events (run_id, sequence, event)
     SELECT e->>'runId', (e->>'sequence')::integer, e FROM jsonb_array_elements($1::jsonb) AS e`,
    params: [JSON.stringify(decision.events)],
    tables: ['engine_run_events'],
  });
  const events = decision.events.map((e) => assertRunEvent(e));
  // One process: the projector's code, in this transaction (if it fails, the transaction is taken
  // again without it and the projector's consumer applies the events, ADR 0039).
  const projected = await DecisionProjection.of(manager)?.project(manager, events);
  const projectedThrough = projected?.find((p) => p.runId === next.runId)?.sequence ?? -1;
  await syncRunTimer(manager, prior, next);
  const messages: OutboxMessage[] = [];
  if (decision.openInterrupt) {
    const open: OpenInterruptCommand = {
      id: `open:${decision.openInterrupt.interruptId}`,
      type: 'interrupt.open',
      occurredAt: decision.openInterrupt.requestedAt,
      correlationId: next.runId,
      causationId: command.id,
      actor: { tenant: next.tenant, principal: next.principal },
      data: { ...decision.openInterrupt },
    };
    assertCommand(open, INTERRUPT_COMMAND_DATA);
    annotateActiveSpan(interruptAttributes(open.data.kind, open.data.interruptId));
    messages.push({ topic: Topics.interruptCommands, key: next.runId, value: open });
  }
  for (const e of events) {
    const event = { topic: Topics.runEvents, key: next.runId, value: e };
    messages.push(
      e.sequence <= projectedThrough ? { ...event, headers: { [PROJECTED_IN_DECISION]: '1' } } : event,
    );
  }
  const owed: AgentTurnCommand[] = [];
  for (const f of decision.followUps ?? []) {
    const m = followUpMessage(next, f, command, decidedAt(decision));
    if (m.topic === Topics.engineCommands) owed.push(m.value as AgentTurnCommand);
    else messages.push(m);
  }
  messages.push(...childRunMessages(prior, decision, command));
  await appendToOutbox(manager, messages);
  // An agent's reply is owed to the turn workers, not to the command topic (ADR 0037).
  await oweAgentTurns(manager, owed);
}

/**
 * A conversation's next step, as a command: `agent.turn` (an agent owes a reply; kept as a row for
 * the turn workers, ADR 0037), or a close to the interrupt service (the node's policy ended the
 * talk). Ids derive from the conversation and turn, so a re-decided follow-up dedupes downstream.
 */
function followUpMessage(run: RunRecord, f: FollowUp, cause: EngineCommand, at: string): OutboxMessage {
  const actor = { tenant: run.tenant, principal: run.principal };
  const base = {
    occurredAt: at,
    correlationId: cause.correlationId,
    causationId: cause.id,
    actor,
  };
  if (f.kind === 'reply') {
    const turn: AgentTurnCommand = {
      ...base,
      id: `agent:${f.conversationId}:${f.speakerId}:${f.afterTurnIndex}`,
      type: 'agent.turn',
      data: {
        runId: f.runId,
        nodeId: f.nodeId,
        interruptId: f.interruptId,
        conversationId: f.conversationId,
        speakerId: f.speakerId,
        afterTurnIndex: f.afterTurnIndex,
      },
    };
    assertCommand(turn, ENGINE_COMMAND_DATA);
    return { topic: Topics.engineCommands, key: run.runId, value: turn };
  }
  const close: ResolveInterruptCommand = {
    ...base,
    id: `agent-close:${f.conversationId}:${f.afterTurnIndex}`,
    type: 'interrupt.resolve',
    data: {
      runId: f.runId,
      nodeId: f.nodeId,
      interruptId: f.interruptId,
      via: 'agent',
      resumeValue: { operation: 'close', reason: f.reason, outcome: f.outcome },
    },
  };
  assertCommand(close, INTERRUPT_COMMAND_DATA);
  return { topic: Topics.interruptCommands, key: run.runId, value: close };
}

/** The run's status as `GET /v1/runs/{runId}` names it (`waiting-*` while suspended). */
export function publicStatus(state: RunState): string {
  return publicRunStatus(state);
}

/** The run's last sequence, or -1 before its first event. */
export function lastSequenceOf(state: RunState): number {
  return state.status === 'none' ? -1 : state.lastSequence;
}
