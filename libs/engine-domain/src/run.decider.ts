import { DomainError, assertNever } from '@openwop/kernel';
import {
  MAX_NODE_EXECUTIONS,
  isTerminalRunStatus,
  waitingStatusFor,
  type PauseDrainPolicy,
  type RunEventDoc,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { followUpsOf, type FollowUp } from './agent-driver';
import { BUILTIN_NODE_REGISTRY } from './builtin-nodes';
import { EventWriter } from './event-writer';
import { drive, reenterCancelled, type NodeRegistry, type RunError } from './executor';
import { emitResolution, type OpenInterruptRequest } from './interrupt-events';
import {
  CHILD_STARTED,
  childRecordOf,
  emitChildChange,
  type ChildRunChange,
  type ParentLink,
  type PendingChild,
} from './child-runs';
import { newRunRecord, type RunOptions, type RunRecord, type RunState } from './run.state';
import { emitTimerFired } from './timer-events';
import { emitPauseRequested } from './pause-drain';

/** Who asked, and when: command inputs the decider must not read from the environment. */
export interface CommandContext {
  readonly commandId: string;
  /** ISO timestamp the handler took from its clock. */
  readonly now: string;
  readonly tenant: string;
  readonly principal: string;
}

export interface StartRun {
  readonly type: 'StartRun';
  readonly runId: string;
  readonly workflow: WorkflowDefinition;
  readonly inputs: Record<string, unknown>;
  /** `run.start` metadata; `metadata.configurable` carries `RunOptions.configurable`. */
  readonly metadata?: Record<string, unknown>;
  /** Set when a parent run's node started this run (`ctx.startChild`). */
  readonly parent?: ParentLink;
  /** `2` for a run created under protocol major 2 (ADR 0041); absent for major 1. */
  readonly protocolMajor?: 2;
  /** `createRun.callbackUrl`, egress-checked by the gateway; echoed on `run.started` for the notifier. */
  readonly callbackUrl?: string;
  readonly context: CommandContext;
}

/** A child run this run waits on changed status (it waits on an interrupt, goes on, or ended). */
export interface ChildRunChanged {
  readonly type: 'ChildRunChanged';
  readonly runId: string;
  readonly change: ChildRunChange;
  readonly context: CommandContext;
}

/** The interrupt service decided the pending interrupt `interruptId`. */
export interface ResumeRun {
  readonly type: 'ResumeRun';
  readonly runId: string;
  readonly interruptId: string;
  readonly outcome: 'resolved' | 'timeout';
  readonly resumeValue?: unknown;
  readonly resolvedBy: string;
  readonly resolvedAt: string;
  readonly notes?: readonly unknown[];
  readonly context: CommandContext;
}

export interface CancelRun {
  readonly type: 'CancelRun';
  readonly runId: string;
  readonly reason?: string;
  /** The parent run whose cancel cascades to this one (`run.cancelled.parentRunId`). */
  readonly parentRunId?: string;
  readonly context: CommandContext;
}

/** The interrupt service decided a turn or the close of the conversation held by `interruptId`. */
export interface RecordConversation {
  readonly type: 'RecordConversation';
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  readonly eventType: 'conversation.exchanged' | 'conversation.closed' | 'conversation.silence';
  readonly payload: Record<string, unknown>;
  readonly context: CommandContext;
}

/**
 * The interrupt service decided an escalation step (ADR 0034) or a claim change (ADR 0035) on the
 * interrupt `interruptId`.
 */
export interface RecordEscalation {
  readonly type: 'RecordEscalation';
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  readonly eventType:
    | 'interrupt.reminded'
    | 'interrupt.reassigned'
    | 'interrupt.claimed'
    | 'interrupt.released';
  readonly payload: Record<string, unknown>;
  readonly context: CommandContext;
}

/** Streamed output of an agent (`output.chunk`), appended while its conversation is open. */
export interface AppendOutput {
  readonly type: 'AppendOutput';
  readonly runId: string;
  readonly nodeId: string;
  readonly conversationId: string;
  readonly chunks: readonly Record<string, unknown>[];
  readonly context: CommandContext;
}

/**
 * A command that carried the run forward could not be applied (it was set aside after its retries):
 * the run ends `failed` with `error`, so nothing waits on it forever.
 */
export interface FailRun {
  readonly type: 'FailRun';
  readonly runId: string;
  readonly error: RunError;
  readonly context: CommandContext;
}

/** The durable timer `timerKey` fell due (the engine's timer poller claimed it). */
export interface FireTimer {
  readonly type: 'FireTimer';
  readonly runId: string;
  readonly timerKey: string;
  readonly context: CommandContext;
}

/** An operator pauses the run (`POST /v1/runs/{runId}:pause`). */
export interface PauseRun {
  readonly type: 'PauseRun';
  readonly runId: string;
  readonly reason?: string;
  readonly drainPolicy: PauseDrainPolicy;
  readonly context: CommandContext;
}

/** An operator resumes the paused run (`POST /v1/runs/{runId}:resume`). */
export interface UnpauseRun {
  readonly type: 'UnpauseRun';
  readonly runId: string;
  readonly reason?: string;
  readonly context: CommandContext;
}

export type RunCommand =
  | StartRun
  | ResumeRun
  | CancelRun
  | FailRun
  | RecordConversation
  | RecordEscalation
  | AppendOutput
  | FireTimer
  | PauseRun
  | UnpauseRun
  | ChildRunChanged;

/** A child run to start (its `run.start`), as a decision asks the host. */
export interface ChildStart extends Omit<PendingChild, 'waiting'> {
  readonly parent: ParentLink;
}

/**
 * The events a command decided, the state after them, the interrupt to open if the run suspended,
 * and what the conversations these events touched need next from their agents.
 */
export interface RunDecision {
  readonly events: RunEventDoc[];
  readonly state: RunState;
  readonly openInterrupt?: OpenInterruptRequest;
  readonly followUps?: readonly FollowUp[];
  /** The child run a node started in this decision: the host sends its `run.start`. */
  readonly startChild?: ChildStart;
  /** The child run to cancel because this run was cancelled (`reason: parent-cancelled`). */
  readonly cancelChild?: { readonly runId: string; readonly parentRunId: string };
}

/** Run already exists: the command is refused, nothing is written. */
export class RunAlreadyExists extends DomainError {
  constructor(runId: string) {
    super('run_already_exists', `run ${runId} already exists`, { runId });
  }
}

export class RunNotFound extends DomainError {
  constructor(runId: string) {
    super('not_found', `run ${runId} does not exist`, { runId });
  }
}

export class RunTerminal extends DomainError {
  constructor(runId: string, status: string) {
    super('run_terminal', `run ${runId} is already ${status}`, { runId, runStatus: status });
  }
}

/** `:pause` of a run already paused: `409`, with the existing pause's `pausedAt`. */
export class RunAlreadyPaused extends DomainError {
  constructor(runId: string, pausedAt: string) {
    super('run_already_paused', `run ${runId} is already paused`, { runId, runStatus: 'paused', pausedAt });
  }
}

/**
 * A second drain-current-node `:pause` while the first still waits for its node: `409`
 * `run_already_paused` (the pause is underway), with the run's status and when it was asked for.
 */
export class RunPauseDraining extends DomainError {
  constructor(runId: string, status: string, pauseRequestedAt: string) {
    super('run_already_paused', `run ${runId} pauses once its executing node reaches a terminal`, {
      runId,
      runStatus: status,
      pauseRequestedAt,
      drainPolicy: 'drain-current-node',
    });
  }
}

/** `:resume` of a run that is not paused: `409`, with the run's actual status. */
export class RunNotPaused extends DomainError {
  constructor(runId: string, status: string) {
    super('run_not_paused', `run ${runId} is not paused (it is ${status})`, { runId, runStatus: status });
  }
}

/** Default of `configurable.escalationThreshold` (`interrupt.md` §low-confidence). */
export const DEFAULT_ESCALATION_THRESHOLD = 0.7;
/** Default of `configurable.run.recursionLimit`: node executions before a run counts as a runaway loop. */
export const DEFAULT_RECURSION_LIMIT = 100;

/**
 * Decides the events of a command. Node execution is part of deciding: nodes run (async) inside the
 * decision until the run waits on an interrupt or ends, so one command commits one whole stretch of
 * the run. Pure apart from the nodes it runs: time and ids come from the command.
 *
 * @throws {@link RunAlreadyExists}, {@link RunNotFound}, {@link RunTerminal}, or a `validation_error`
 * {@link DomainError} for a workflow with node types the registry lacks.
 */
export async function decideRun(
  command: RunCommand,
  state: RunState,
  nodes: NodeRegistry = BUILTIN_NODE_REGISTRY,
): Promise<RunDecision> {
  switch (command.type) {
    case 'StartRun':
      return startRun(command, state, nodes);
    case 'ResumeRun':
      return resumeRun(command, state, nodes);
    case 'CancelRun':
      return cancelRun(command, state, nodes);
    case 'FailRun':
      return failRun(command, state);
    case 'RecordConversation':
      return recordConversation(command, state);
    case 'RecordEscalation':
      return recordEscalation(command, state);
    case 'AppendOutput':
      return appendOutput(command, state);
    case 'FireTimer':
      return fireTimer(command, state, nodes);
    case 'PauseRun':
      return pauseRun(command, state);
    case 'UnpauseRun':
      return unpauseRun(command, state, nodes);
    case 'ChildRunChanged':
      return childRunChanged(command, state, nodes);
    default:
      return assertNever(command, 'run command');
  }
}

async function startRun(command: StartRun, state: RunState, nodes: NodeRegistry): Promise<RunDecision> {
  if (state.status !== 'none') throw new RunAlreadyExists(command.runId);
  const { workflow, context } = command;
  const unknown = workflow.nodes.filter((n) => !nodes.has(n.typeId));
  if (unknown.length) {
    throw new DomainError(
      'validation_error',
      `node type ${unknown[0]!.typeId} is not supported by this host`,
      {
        nodeId: unknown[0]!.id,
        typeId: unknown[0]!.typeId,
      },
    );
  }
  const record = newRunRecord({
    runId: command.runId,
    workflow,
    inputs: command.inputs,
    options: runOptions(command.metadata),
    tenant: context.tenant,
    principal: context.principal,
    ...(command.parent ? { parent: command.parent } : {}),
  });
  const w = new EventWriter(record, context.commandId, context.now);
  w.emit('run.started', undefined, {
    workflowId: workflow.id,
    inputs: command.inputs,
    transport: 'rest',
    owner: { tenant: context.tenant, principal: context.principal },
    ...(command.parent ? { parentRunId: command.parent.runId, parentNodeId: command.parent.nodeId } : {}),
    ...(command.metadata ? { metadata: command.metadata } : {}),
    // The major the run was created under, for life (ADR 0041); absent means 1.
    ...(command.protocolMajor === 2 ? { protocolMajor: 2 } : {}),
    // Where notice of the run's interrupts goes (interrupt.md §Callback delivery; the notifier).
    ...(command.callbackUrl !== undefined ? { callbackUrl: command.callbackUrl } : {}),
  });
  const openInterrupt = await drive(w, nodes);
  return decision(w, openInterrupt);
}

/** A resume for an interrupt the run is not waiting on (already resolved, cancelled, unknown) changes nothing. */
async function resumeRun(command: ResumeRun, state: RunState, nodes: NodeRegistry): Promise<RunDecision> {
  if (state.status !== 'suspended' || state.pending?.interruptId !== command.interruptId)
    return { events: [], state };
  const pending = state.pending;
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  emitResolution(w, pending, command);
  const openInterrupt = await drive(w, nodes, pending.key);
  return decision(w, openInterrupt);
}

/**
 * Cancels the run. A node suspended on an interrupt is re-entered first with the run marked
 * cancelled, so its pending `ctx.interrupt` throws {@link InterruptCancelledError} and the node's
 * own clean-up runs (its emits are recorded); whatever it does, the node and the run end cancelled.
 */
async function cancelRun(command: CancelRun, state: RunState, nodes: NodeRegistry): Promise<RunDecision> {
  if (state.status === 'none') throw new RunNotFound(command.runId);
  if (isTerminalRunStatus(state.status)) {
    throw new RunTerminal(command.runId, state.status);
  }
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  const reason = command.reason ?? 'cancelled';
  const nodeId = state.pending?.nodeId ?? state.active?.nodeId;
  if (state.pending) await reenterCancelled(w, nodes, state.pending.nodeId);
  if (nodeId) {
    w.emit('node.cancelled', nodeId, {
      nodeId,
      reason,
      ...(state.pending ? { interruptId: state.pending.interruptId } : {}),
    });
  }
  const child = state.child;
  w.emit('run.cancelled', undefined, {
    reason,
    cancelledBy: command.context.principal,
    ...(command.parentRunId !== undefined
      ? { parentRunId: command.parentRunId, ...(state.parent ? { parentNodeId: state.parent.nodeId } : {}) }
      : {}),
  });
  // The child this run waited on is cancelled too (interrupt-profiles.md §cascade-cancel).
  const cancelChild = child ? { runId: child.runId, parentRunId: state.runId } : undefined;
  return { ...decision(w, undefined), ...(cancelChild ? { cancelChild } : {}) };
}

/**
 * The child run the run waits on changed: its wait shows on the parent's node; when it ended, its
 * outcome is recorded and the node re-executes (its `ctx.startChild` returns the outcome). A change
 * of a child the run no longer waits on (it was cancelled, a duplicate) changes nothing.
 */
async function childRunChanged(
  command: ChildRunChanged,
  state: RunState,
  nodes: NodeRegistry,
): Promise<RunDecision> {
  if (state.status !== 'running' || state.child?.runId !== command.change.childRunId)
    return { events: [], state };
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  if (emitChildChange(w, state.child, command.change) !== 'ended') return decision(w, undefined);
  const openInterrupt = await drive(w, nodes, state.child.runId);
  return decision(w, openInterrupt);
}

/**
 * Fails the run: the node it was running or waiting in fails with `error`, then the run. Idempotent:
 * a run already terminal (it completed, failed or was cancelled meanwhile) is left as it is.
 */
function failRun(command: FailRun, state: RunState): RunDecision {
  if (state.status === 'none') throw new RunNotFound(command.runId);
  if (isTerminalRunStatus(state.status)) {
    return { events: [], state };
  }
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  const nodeId = state.pending?.nodeId ?? state.active?.nodeId;
  if (nodeId) w.emit('node.failed', nodeId, { nodeId, error: command.error, attempts: 1 });
  w.emit('run.failed', undefined, { error: command.error, ...(nodeId ? { failedNodeId: nodeId } : {}) });
  return decision(w, undefined);
}

/**
 * Appends a decided conversation event. Idempotent: an event for a conversation the run does not
 * hold open under `interruptId`, or not at its next turn index (a redelivery), appends nothing.
 */
function recordConversation(command: RecordConversation, state: RunState): RunDecision {
  if (state.status === 'none') throw new RunNotFound(command.runId);
  const id = String(command.payload.conversationId);
  const view = state.conversations?.[id];
  if (
    state.status !== 'suspended' ||
    !view ||
    view.status !== 'open' ||
    view.interruptId !== command.interruptId
  ) {
    return { events: [], state };
  }
  if (command.eventType === 'conversation.silence') {
    // An audit record, not a turn: only while nobody has spoken since the silence began.
    if (command.payload.silentSinceTurnIndex !== view.nextTurnIndex - 1) return { events: [], state };
    const w = new EventWriter(state, view.lastEventId, command.context.now);
    w.emit('log.appended', command.nodeId, {
      level: 'warn',
      message: `conversation ${id}: nobody spoke for ${String(command.payload.maxSilenceMs)} ms`,
      nodeId: command.nodeId,
      fields: { event: 'conversation.silence', ...command.payload },
    });
    return { events: w.events, state: w.result() };
  }
  if (command.payload.turnIndex !== view.nextTurnIndex) return { events: [], state };
  // Caused by the conversation's previous event, not by the command that carried it (RFC 0005 §B).
  const w = new EventWriter(state, view.lastEventId, command.context.now);
  w.emit(command.eventType, command.nodeId, command.payload);
  return decision(w, undefined);
}

/**
 * Appends a decided escalation step (`interrupt.reminded`, `interrupt.reassigned`) or claim change
 * (`interrupt.claimed`, `interrupt.released`) while the run still waits on that interrupt; one that
 * arrives after the interrupt was answered or the run ended appends nothing (it is history of a
 * wait that is over).
 */
function recordEscalation(command: RecordEscalation, state: RunState): RunDecision {
  if (state.status === 'none') throw new RunNotFound(command.runId);
  if (state.pending?.interruptId !== command.interruptId || isTerminalRunStatus(state.status))
    return { events: [], state };
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  w.emit(command.eventType, command.nodeId, {
    ...command.payload,
    nodeId: command.nodeId,
    interruptId: command.interruptId,
  });
  return { events: w.events, state: w.result() };
}

function appendOutput(command: AppendOutput, state: RunState): RunDecision {
  if (state.status === 'none') throw new RunNotFound(command.runId);
  if (state.status !== 'suspended' || state.conversations?.[command.conversationId]?.status !== 'open') {
    return { events: [], state };
  }
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  for (const chunk of command.chunks) w.emit('output.chunk', command.nodeId, chunk);
  return { events: w.events, state: w.result() };
}

/**
 * The run's timer `timerKey` fell due: the firing is recorded and the waiting node goes on, unless
 * the run is paused (it goes on at `:resume`). A timer the run no longer waits on (the run was
 * cancelled, or this firing is a duplicate) changes nothing.
 */
async function fireTimer(command: FireTimer, state: RunState, nodes: NodeRegistry): Promise<RunDecision> {
  if (state.status !== 'running' || state.timer?.key !== command.timerKey) return { events: [], state };
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  emitTimerFired(w, state.timer);
  const openInterrupt = await drive(w, nodes, command.timerKey);
  return decision(w, openInterrupt);
}

/**
 * Pauses the run (rest-endpoints.md §`:pause`). `immediate` pauses it now, between events. With
 * `drain-current-node`, a run whose node is executing (started, not yet at a terminal: waiting on a
 * durable timer, a child run or an agent turn) records the request and pauses once that node
 * reaches a terminal (`node.completed`, `node.failed` or `node.suspended`), so `run.paused` follows
 * it in the log; a run with no node executing (suspended on an interrupt, or between nodes) pauses
 * now. The chosen policy is recorded on `run.paused`.
 * @throws {@link RunNotFound}, {@link RunTerminal}, {@link RunAlreadyPaused} (also while a drain is pending)
 */
function pauseRun(command: PauseRun, state: RunState): RunDecision {
  if (state.status === 'none') throw new RunNotFound(command.runId);
  if (isTerminalRunStatus(state.status)) throw new RunTerminal(command.runId, state.status);
  if (state.paused) throw new RunAlreadyPaused(command.runId, state.paused.pausedAt);
  const draining =
    command.drainPolicy === 'drain-current-node' && state.status === 'running' ? state.active : undefined;
  if (draining && state.pauseRequested)
    throw new RunPauseDraining(command.runId, publicRunStatus(state), state.pauseRequested.requestedAt);
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  if (draining) {
    emitPauseRequested(w, {
      nodeId: draining.nodeId,
      principal: command.context.principal,
      ...(command.reason !== undefined ? { reason: command.reason } : {}),
    });
    return decision(w, undefined);
  }
  w.emit('run.paused', undefined, {
    ...(command.reason !== undefined ? { reason: command.reason } : {}),
    drainPolicy: command.drainPolicy,
    pausedAt: command.context.now,
    pausedBy: command.context.principal,
  });
  return decision(w, undefined);
}

/**
 * Resumes a paused run: `run.resumed`, then the run goes on from where it was (a timer or an
 * interrupt that was answered while paused is consumed now).
 * @throws {@link RunNotFound}, {@link RunNotPaused}
 */
async function unpauseRun(command: UnpauseRun, state: RunState, nodes: NodeRegistry): Promise<RunDecision> {
  if (state.status === 'none') throw new RunNotFound(command.runId);
  if (!state.paused) throw new RunNotPaused(command.runId, publicRunStatus(state));
  const w = new EventWriter(state, command.context.commandId, command.context.now);
  w.emit('run.resumed', undefined, {
    ...(command.reason !== undefined ? { reason: command.reason } : {}),
    resumedAt: command.context.now,
    resumedBy: command.context.principal,
  });
  const openInterrupt = await drive(w, nodes);
  return decision(w, openInterrupt);
}

/** The run's status as `GET /v1/runs/{runId}` names it: `paused`, `waiting-*` while suspended, else the engine's. */
export function publicRunStatus(state: RunState): string {
  if (state.status === 'none') return 'unknown';
  if (state.paused) return 'paused';
  if (state.status === 'suspended' && state.pending) return waitingStatusFor(state.pending.kind);
  if (state.status === 'running' && state.child?.waiting) return waitingStatusFor(state.child.waiting);
  return state.status;
}

function decision(w: EventWriter, openInterrupt: OpenInterruptRequest | undefined): RunDecision {
  const state = w.result();
  const followUps = state.status === 'none' ? [] : followUpsOf(state, w.events, w.now);
  const startChild = state.status === 'none' ? undefined : childStartedIn(state, w.events);
  return {
    events: w.events,
    state,
    ...(openInterrupt ? { openInterrupt } : {}),
    ...(followUps.length ? { followUps } : {}),
    ...(startChild ? { startChild } : {}),
  };
}

/** The child a node started among `events` (the run then waits on it), or `undefined`. */
export function childStartedIn(state: RunRecord, events: readonly RunEventDoc[]): ChildStart | undefined {
  const child = state.child;
  if (!child) return undefined;
  const started = events.some(
    (e) => childRecordOf(e)?.event === CHILD_STARTED && childRecordOf(e)?.childRunId === child.runId,
  );
  if (!started) return undefined;
  return {
    nodeId: child.nodeId,
    runId: child.runId,
    workflowId: child.workflowId,
    inputs: child.inputs,
    parent: { runId: state.runId, nodeId: child.nodeId },
  };
}

/**
 * Run options from `metadata.configurable`; out-of-range values fall back to the defaults, and a
 * `recursionLimit` above `MAX_NODE_EXECUTIONS` is clamped to it (run-options.schema.json).
 */
export function runOptions(metadata: Record<string, unknown> | undefined): RunOptions {
  const configurable = (metadata?.configurable ?? {}) as {
    escalationThreshold?: unknown;
    recursionLimit?: unknown;
    run?: { recursionLimit?: unknown };
  };
  const threshold = configurable.escalationThreshold;
  const limit = configurable.run?.recursionLimit ?? configurable.recursionLimit;
  return {
    escalationThreshold:
      typeof threshold === 'number' && threshold >= 0 && threshold <= 1
        ? threshold
        : DEFAULT_ESCALATION_THRESHOLD,
    // Clamped to the host's ceiling (`limits.maxNodeExecutions`); the gateway already refuses more.
    recursionLimit:
      typeof limit === 'number' && Number.isInteger(limit) && limit >= 1
        ? Math.min(limit, MAX_NODE_EXECUTIONS)
        : DEFAULT_RECURSION_LIMIT,
  };
}
