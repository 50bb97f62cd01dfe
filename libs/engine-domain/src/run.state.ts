import {
  TIMER_FIRED,
  timerRecordOf,
  type InterruptKind,
  type InterruptRecord,
  type PauseDrainPolicy,
  type RunEventDoc,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { ownValue } from '@openwop/kernel';
import { CHILD_ENDED, childRecordOf, type ParentLink, type PendingChild } from './child-runs';
import { evolveConversations, type ConversationView } from './conversation-view';
import { withEntry, withoutEntry, withoutFirst } from './draft';
import { entryNodes, propagate } from './graph';
import { NODE_EMITTABLE_EVENTS, type NodeOutputs, type RunConfigurable } from './node';
import { pauseRequestOf } from './pause-drain';

export type RunStatus = 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled';

/** How a node's latest visit ended. */
export type NodeOutcome = 'succeeded' | 'failed' | 'skipped';

/** What an interrupt key was resolved with: a resume value, or its timeout. */
export type Resolution = { readonly value: unknown } | { readonly timeout: true };

/** What a finished source node tells one outgoing edge: the edge admits it (`fire`) or not (`block`). */
export type EdgeSignal = 'fire' | 'block';

/** A node the scheduler decided to visit next: run it, or record it skipped. */
export interface QueuedNode {
  readonly nodeId: string;
  readonly action: 'run' | 'skip';
}

/** The interrupt the run waits on (the `interrupt.requested` payload, minus the run id). */
export type PendingInterrupt = Omit<InterruptRecord, 'runId'>;

/** The node being executed or suspended: its 0-based visit and how many events it emitted so far. */
export interface ActiveNode {
  readonly nodeId: string;
  readonly visit: number;
  readonly emitted: number;
}

/** The durable timer the run waits on (`ctx.sleep`): the run stays `running` and nothing executes until it fires. */
export interface PendingTimer {
  readonly nodeId: string;
  readonly key: string;
  readonly delayMs: number;
  /** ISO instant the timer falls due. */
  readonly dueAt: string;
}

/** An operator's pause (`run.paused`): nothing executes until `run.resumed`. */
export interface RunPause {
  readonly pausedAt: string;
  readonly drainPolicy: PauseDrainPolicy;
  readonly reason?: string;
}

/**
 * A `:pause` with `drainPolicy: drain-current-node` that arrived while node `nodeId` was executing:
 * `run.paused` is written once that node reaches a terminal (`pause-drain.ts`).
 */
export interface PauseRequest {
  readonly nodeId: string;
  readonly requestedAt: string;
  readonly requestedBy: string;
  readonly reason?: string;
}

/** Run-wide options fixed at start (`RunOptions.configurable`). */
export interface RunOptions extends RunConfigurable {
  /** Node executions a run may start before it fails as a runaway loop. */
  readonly recursionLimit: number;
}

/**
 * The engine's state of one run, persisted as jsonb in `engine_runs`. Everything but the pinned
 * `workflow`, `inputs` and `options` is a fold of the run's events ({@link evolveRun}).
 */
export interface RunRecord {
  readonly status: RunStatus;
  readonly runId: string;
  readonly workflowId: string;
  readonly tenant: string;
  readonly principal: string;
  /** The definition the run started with: a later re-registration does not change a running run. */
  readonly workflow: WorkflowDefinition;
  /**
   * 2 for a run created under major 2 (`run.started.protocolMajor`, ADR 0041), for life: its
   * interrupts open as major-2 interrupts, whose approvers are always enforced (RFC 0173 §B).
   */
  readonly protocolMajor?: 2;
  readonly inputs: Record<string, unknown>;
  readonly options: RunOptions;
  readonly lastSequence: number;
  readonly lastEventId: string;
  readonly nodeOutputs: Readonly<Record<string, NodeOutputs>>;
  readonly nodeOutcomes: Readonly<Record<string, NodeOutcome>>;
  /** Visits (node.started) per node. */
  readonly visits: Readonly<Record<string, number>>;
  /** Signals collected per target node since its last visit, by edge key. */
  readonly signals: Readonly<Record<string, Readonly<Record<string, EdgeSignal>>>>;
  readonly queue: readonly QueuedNode[];
  readonly resolutions: Readonly<Record<string, Resolution>>;
  readonly pending?: PendingInterrupt;
  readonly active?: ActiveNode;
  /** The durable timer the active node waits on. */
  readonly timer?: PendingTimer;
  /** The child run the active node waits on (`ctx.startChild`): nothing executes until it ends. */
  readonly child?: PendingChild;
  /** Set on a child run: the parent run and node that wait on it. */
  readonly parent?: ParentLink;
  /** Set while an operator has the run paused. */
  readonly paused?: RunPause;
  /** Set while a drain-current-node pause waits for the executing node to reach a terminal. */
  readonly pauseRequested?: PauseRequest;
  /** Interrupts requested so far in the run; the next interruptId ends with this number. */
  readonly interruptCounter: number;
  /** Node executions started so far. */
  readonly steps: number;
  /** The run's conversations (RFC 0005), bounded views by conversationId. */
  readonly conversations?: Readonly<Record<string, ConversationView>>;
}

/** No run yet, or a run. */
export type RunState = { readonly status: 'none' } | RunRecord;

export const initialRunState = (): RunState => ({ status: 'none' });

/** The state of a run about to emit `run.started`: its entry nodes queued. */
export function newRunRecord(init: {
  runId: string;
  workflow: WorkflowDefinition;
  inputs: Record<string, unknown>;
  options: RunOptions;
  tenant: string;
  principal: string;
  parent?: ParentLink;
}): RunRecord {
  return {
    ...(init.parent ? { parent: init.parent } : {}),
    status: 'running',
    runId: init.runId,
    workflowId: init.workflow.id,
    tenant: init.tenant,
    principal: init.principal,
    workflow: init.workflow,
    inputs: init.inputs,
    options: init.options,
    lastSequence: -1,
    lastEventId: '',
    nodeOutputs: {},
    nodeOutcomes: {},
    visits: {},
    signals: {},
    queue: entryNodes(init.workflow).map((nodeId) => ({ nodeId, action: 'run' as const })),
    resolutions: {},
    interruptCounter: 0,
    steps: 0,
  };
}

const emittable: readonly string[] = NODE_EMITTABLE_EVENTS;

/** Folds one run event into the run's state. Unknown types only advance the sequence. */
export function evolveRun(state: RunState, event: RunEventDoc): RunState {
  if (state.status === 'none') return state;
  const s: RunRecord = { ...state, lastSequence: event.sequence, lastEventId: event.eventId };
  const nodeId = event.nodeId ?? '';
  const p = (event.payload ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case 'run.started':
      return p.protocolMajor === 2 ? { ...s, protocolMajor: 2 } : s;
    case 'node.started': {
      const visit = ownValue(s.visits, nodeId) ?? 0;
      return {
        ...s,
        queue: dequeue(s.queue, nodeId),
        signals: withoutEntry(s.signals, nodeId),
        visits: withEntry(s.visits, nodeId, visit + 1),
        steps: s.steps + 1,
        active: { nodeId, visit, emitted: 0 },
      };
    }
    case 'node.completed':
      return finish(
        { ...s, nodeOutputs: withEntry(s.nodeOutputs, nodeId, (p.outputs as NodeOutputs | undefined) ?? {}) },
        nodeId,
        'succeeded',
      );
    case 'node.failed':
      return finish(s, nodeId, 'failed');
    case 'node.skipped':
      return finish({ ...s, queue: dequeue(s.queue, nodeId) }, nodeId, 'skipped');
    case 'interrupt.requested':
      return { ...s, pending: pendingOf(nodeId, p), interruptCounter: s.interruptCounter + 1 };
    case 'node.suspended':
      // The node waits on its child's interrupt: the run stays running, it only shows the child's wait.
      if (s.child && p.childRunId === s.child.runId)
        return { ...s, child: { ...s.child, waiting: p.kind as InterruptKind } };
      return { ...s, status: 'suspended' };
    case 'interrupt.resolved': {
      const resolution: Resolution =
        p.outcome === 'timeout' || p.reason === 'timeout'
          ? { timeout: true }
          : { value: p.resumeValue ?? null };
      const { pending: _resolved, ...rest } = s;
      return { ...rest, resolutions: { ...s.resolutions, [String(p.key)]: resolution } };
    }
    case 'node.resumed': {
      if (s.child && p.childRunId === s.child.runId) {
        const { waiting: _w, ...child } = s.child;
        return { ...s, child };
      }
      return { ...s, status: 'running' };
    }
    case 'node.cancelled': {
      const { pending: _p, active: _a, timer: _t, child: _c, ...rest } = s;
      return rest;
    }
    case 'run.completed':
      return { ...settled(s), status: 'completed' };
    case 'run.failed':
      return { ...settled(s), status: 'failed' };
    case 'run.cancelled':
      return { ...settled(s), status: 'cancelled' };
    case 'run.paused': {
      const { pauseRequested: _drained, ...rest } = s;
      return {
        ...rest,
        paused: {
          pausedAt: typeof p.pausedAt === 'string' ? p.pausedAt : event.timestamp,
          drainPolicy: p.drainPolicy === 'immediate' ? 'immediate' : 'drain-current-node',
          ...(typeof p.reason === 'string' ? { reason: p.reason } : {}),
        },
      };
    }
    case 'run.resumed': {
      const { paused: _resumed, ...rest } = s;
      return rest;
    }
    case 'conversation.opened':
    case 'conversation.exchanged':
    case 'conversation.closed': {
      const conversations = evolveConversations(s.conversations, event, s.pending?.interruptId);
      return conversations ? { ...s, conversations } : s;
    }
    default: {
      const timer = timerRecordOf(event);
      if (timer) return evolveTimer(s, nodeId, timer);
      const child = childRecordOf(event);
      if (child) return evolveChild(s, nodeId, child);
      const pauseRequested = pauseRequestOf(event);
      if (pauseRequested) return { ...s, pauseRequested };
      // Only the node's own emits count (they are written while it runs); `output.chunk`s appended
      // for its open conversation while it is suspended (AppendOutput) must not hide its next emits.
      if (
        emittable.includes(event.type) &&
        s.status !== 'suspended' &&
        s.active &&
        s.active.nodeId === nodeId
      ) {
        return { ...s, active: { ...s.active, emitted: s.active.emitted + 1 } };
      }
      return s;
    }
  }
}

/** A timer record: scheduled sets the run's timer; fired clears it and records its key answered (a keyed result, like an interrupt's). */
function evolveTimer(
  s: RunRecord,
  nodeId: string,
  timer: NonNullable<ReturnType<typeof timerRecordOf>>,
): RunRecord {
  if (timer.event === TIMER_FIRED) {
    const { timer: _fired, ...rest } = s;
    return { ...rest, resolutions: { ...s.resolutions, [timer.timerKey]: { value: null } } };
  }
  return {
    ...s,
    timer: { nodeId, key: timer.timerKey, delayMs: timer.delayMs ?? 0, dueAt: timer.dueAt ?? '' },
  };
}

/**
 * A child record: started sets the run's child; ended clears it and records the child's outcome
 * under the child's run id (a keyed result, like an interrupt's), which `ctx.startChild` returns.
 */
function evolveChild(s: RunRecord, nodeId: string, f: Record<string, unknown>): RunRecord {
  const childRunId = String(f.childRunId);
  if (f.event === CHILD_ENDED) {
    const { child: _ended, ...rest } = s;
    const { event: _e, ...outcome } = f;
    return { ...rest, resolutions: { ...s.resolutions, [childRunId]: { value: outcome } } };
  }
  const inputs =
    typeof f.inputs === 'object' && f.inputs !== null ? (f.inputs as Record<string, unknown>) : {};
  return { ...s, child: { nodeId, runId: childRunId, workflowId: String(f.workflowId), inputs } };
}

/** A run that ended waits on nothing: no timer, no child, no pause (nor one requested). */
function settled(s: RunRecord): RunRecord {
  const { timer: _t, paused: _p, child: _c, pauseRequested: _r, ...rest } = s;
  return rest;
}

function finish(s: RunRecord, nodeId: string, outcome: NodeOutcome): RunRecord {
  const { active: _done, ...rest } = s;
  const next: RunRecord = { ...rest, nodeOutcomes: withEntry(s.nodeOutcomes, nodeId, outcome) };
  return { ...next, ...propagate(next, nodeId, outcome) };
}

function dequeue(queue: readonly QueuedNode[], nodeId: string): QueuedNode[] {
  return withoutFirst(queue, (q) => q.nodeId === nodeId);
}

function pendingOf(nodeId: string, p: Record<string, unknown>): PendingInterrupt {
  return {
    nodeId,
    interruptId: String(p.interruptId),
    key: String(p.key),
    kind: p.kind as InterruptKind,
    data: p.data,
    ...(p.resumeSchema !== undefined ? { resumeSchema: p.resumeSchema as Record<string, unknown> } : {}),
    ...(p.timeoutMs !== undefined ? { timeoutMs: p.timeoutMs as number } : {}),
    requestedAt: String(p.requestedAt),
  };
}
