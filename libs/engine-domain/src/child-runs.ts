import { createHash } from 'node:crypto';
import {
  isTerminalRunStatus,
  waitingStatusFor,
  type InterruptKind,
  type RunEventDoc,
  type TerminalRunStatus,
} from '@openwop/contracts';
import type { EventWriter } from './event-writer';
import type { RunError } from './executor';
import type { NodeOutputs } from './node';

/** `log.appended.fields.event` of the record that a node started a child run (its inputs with it). */
export const CHILD_STARTED = 'child.started';
/** `log.appended.fields.event` of the record that the child run ended (its outcome with it). */
export const CHILD_ENDED = 'child.ended';

/** A child run a node asked for (`ctx.startChild`), as the run's state holds it until the child ends. */
export interface PendingChild {
  readonly nodeId: string;
  /** The child's run id; also the key its outcome is recorded under in `resolutions`. */
  readonly runId: string;
  readonly workflowId: string;
  readonly inputs: Record<string, unknown>;
  /** The interrupt kind the child waits on, while it waits (the parent shows the same `waiting-*`). */
  readonly waiting?: InterruptKind;
}

/** How a child run ended, as `ctx.startChild` returns it. */
export interface ChildRunOutcome {
  readonly childRunId: string;
  readonly status: TerminalRunStatus;
  readonly outputs?: NodeOutputs;
  readonly error?: RunError;
}

/** The parent link a child run carries: which run and node wait on it. */
export interface ParentLink {
  readonly runId: string;
  readonly nodeId: string;
}

/** A change of a child run's status, reported to its parent (`run.child`). */
export interface ChildRunChange {
  readonly childRunId: string;
  /** `running`, a `waiting-*` status, or the child's terminal status. */
  readonly status: string;
  /** The child's pending interrupt, while it waits on one. */
  readonly interruptId?: string;
  readonly kind?: InterruptKind;
  readonly outputs?: NodeOutputs;
  readonly error?: RunError;
}

/**
 * The run id of the `index`-th child a node execution starts on visit `visit`: derived, so a
 * re-execution (or a redelivered command) names the same child, and shaped like the UUIDs the
 * gateway gives runs.
 */
export function childRunIdFor(parentRunId: string, nodeId: string, visit: number, index: number): string {
  const h = createHash('sha256')
    .update(`${parentRunId}\u0000${nodeId}\u0000${visit}\u0000${index}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Records that `nodeId` started the child run `child`: `node.dispatched` (the wire's parent → child
 * link) and a node-scoped `log.appended` carrying the child's workflow and inputs, from which the
 * host sends the child's `run.start`. The parent stays `running` and executes nothing until the
 * child ends.
 */
export function emitChildStarted(
  w: EventWriter,
  nodeId: string,
  child: Omit<PendingChild, 'nodeId' | 'waiting'>,
): undefined {
  w.emit('node.dispatched', nodeId, {
    childRunId: child.runId,
    childWorkflowId: child.workflowId,
    childStatus: 'running',
  });
  w.emit('log.appended', nodeId, {
    level: 'info',
    message: `started child run ${child.runId} of workflow ${child.workflowId}`,
    nodeId,
    fields: {
      event: CHILD_STARTED,
      childRunId: child.runId,
      workflowId: child.workflowId,
      inputs: child.inputs,
    },
  });
  return undefined;
}

/**
 * Records a change of the pending child: while it waits on an interrupt the parent's node shows
 * `node.suspended` with the child's interrupt (so the parent reads `waiting-*` too), `node.resumed`
 * when it goes on; when it ends, its outcome (`log.appended` {@link CHILD_ENDED}), which answers the
 * node's `ctx.startChild` on re-execution.
 */
export function emitChildChange(
  w: EventWriter,
  child: PendingChild,
  change: ChildRunChange,
): 'ended' | 'changed' | 'none' {
  const ended = isTerminalRunStatus(change.status);
  const waitingOn = !ended && change.status.startsWith('waiting-') ? change.kind : undefined;
  const resumedOrEnded = child.waiting !== undefined && waitingOn === undefined;
  if (resumedOrEnded) w.emit('node.resumed', child.nodeId, { nodeId: child.nodeId, childRunId: child.runId });
  if (waitingOn && waitingOn !== child.waiting) {
    w.emit('node.suspended', child.nodeId, {
      nodeId: child.nodeId,
      interruptId: change.interruptId ?? child.runId,
      kind: waitingOn,
      childRunId: child.runId,
      reason: `child run ${child.runId} is ${waitingStatusFor(waitingOn)}`,
    });
  }
  if (!ended) return resumedOrEnded || waitingOn !== undefined ? 'changed' : 'none';
  w.emit('log.appended', child.nodeId, {
    level: change.status === 'completed' ? 'info' : 'warn',
    message: `child run ${child.runId} ${change.status}`,
    nodeId: child.nodeId,
    fields: {
      event: CHILD_ENDED,
      childRunId: child.runId,
      status: change.status,
      ...(change.outputs !== undefined ? { outputs: change.outputs } : {}),
      ...(change.error !== undefined ? { error: change.error } : {}),
    },
  });
  return 'ended';
}

/** A `child.started` / `child.ended` record of the run log, or `undefined`. */
export function childRecordOf(event: RunEventDoc): Record<string, unknown> | undefined {
  if (event.type !== 'log.appended') return undefined;
  const fields = (event.payload as { fields?: unknown } | null)?.fields;
  if (typeof fields !== 'object' || fields === null) return undefined;
  const kind = (fields as { event?: unknown }).event;
  return kind === CHILD_STARTED || kind === CHILD_ENDED ? (fields as Record<string, unknown>) : undefined;
}
