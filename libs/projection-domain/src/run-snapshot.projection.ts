import {
  eventLogSchemaVersionOf,
  waitingStatusFor,
  type InterruptKind,
  type RunEventDoc,
  type RunEventType,
} from '@openwop/contracts';

/** The `GET /v1/runs/{runId}` body (`run-snapshot.schema.json`), as folded from the run's events. */
export interface RunSnapshot {
  readonly runId: string;
  readonly workflowId: string;
  readonly status: string;
  /** The era key of the run's event log (`eventLogSchemaVersion`), fixed at `run.started`: 2 for a v1 run. */
  readonly eventLogSchemaVersion?: number;
  readonly owner?: { readonly tenant: string; readonly principal?: string };
  readonly currentNodeId?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
  /** The caller's inputs, overlaid with the run's outputs once it completed (`run-snapshot.schema.json`). */
  readonly variables?: Record<string, unknown>;
  /** `{code, message, details?}` of a failed run (the schema's `error`, closed). */
  readonly error?: unknown;
  /** The interrupt the run waits on, while it waits. */
  readonly interrupt?: PendingInterruptView;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly completedAt?: string;
  /** Sequence of the last projected event. */
  readonly lastSequence: number;
  /** Set on a child run (`core.subWorkflow`): the parent run and node that started it. */
  readonly parentRunId?: string;
  readonly parentNodeId?: string;
  /** The child runs this run's nodes started (`node.dispatched`), with their status as this run last heard it. */
  readonly childRuns?: readonly ChildRunView[];
}

/** One child run on its parent's snapshot. */
export interface ChildRunView {
  readonly runId: string;
  readonly workflowId: string;
  readonly nodeId: string;
  readonly status: string;
}

/** The pending interrupt as the snapshot and the pending-interrupts listing show it. */
export interface PendingInterruptView {
  readonly interruptId: string;
  readonly nodeId: string;
  readonly kind: InterruptKind;
  readonly key: string;
  readonly data: unknown;
  readonly requestedAt: string;
  readonly timeoutMs?: number;
  readonly resumeSchema?: Record<string, unknown>;
}

/** Reads the pending interrupt out of an `interrupt.requested` payload. */
export function pendingInterruptOf(event: RunEventDoc): PendingInterruptView {
  const p = event.payload as Partial<PendingInterruptView> & { nodeId?: string };
  return {
    interruptId: String(p.interruptId),
    nodeId: p.nodeId ?? event.nodeId ?? '',
    kind: p.kind as InterruptKind,
    key: String(p.key),
    data: p.data ?? null,
    requestedAt: p.requestedAt ?? event.timestamp,
    ...(p.timeoutMs !== undefined ? { timeoutMs: p.timeoutMs } : {}),
    ...(p.resumeSchema !== undefined ? { resumeSchema: p.resumeSchema } : {}),
  };
}

/** Event types this projection reacts to; others only advance `lastSequence`. */
export const RUN_SNAPSHOT_EVENTS: readonly RunEventType[] = [
  'run.started',
  'node.started',
  'node.completed',
  'node.failed',
  'interrupt.requested',
  'node.suspended',
  'interrupt.resolved',
  'interrupt.reassigned',
  'node.resumed',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.paused',
  'run.resumed',
  'node.dispatched',
  'log.appended',
];

/**
 * Folds one event into the snapshot. Pure and deterministic, so a rebuild from the log gives
 * the same rows. Returns `null` while the run has no `run.started` yet.
 */
export function evolveRunSnapshot(snapshot: RunSnapshot | null, event: RunEventDoc): RunSnapshot | null {
  if (event.type === 'run.started') {
    const p = event.payload as {
      workflowId: string;
      inputs?: Record<string, unknown>;
      owner?: RunSnapshot['owner'];
      parentRunId?: string;
      parentNodeId?: string;
    };
    return {
      runId: event.runId,
      workflowId: p.workflowId,
      status: 'running',
      eventLogSchemaVersion: eventLogSchemaVersionOf(event.payload),
      ...(p.owner ? { owner: p.owner } : {}),
      ...(typeof p.parentRunId === 'string' ? { parentRunId: p.parentRunId } : {}),
      ...(typeof p.parentNodeId === 'string' ? { parentNodeId: p.parentNodeId } : {}),
      ...(p.inputs ? { inputs: p.inputs } : {}),
      variables: p.inputs ?? {},
      createdAt: event.timestamp,
      updatedAt: event.timestamp,
      lastSequence: event.sequence,
    };
  }
  if (!snapshot) return null;
  const next = { ...snapshot, updatedAt: event.timestamp, lastSequence: event.sequence };
  // Paused by an operator: what happens meanwhile (an answer, a timer) is recorded, the status stays `paused`.
  if (snapshot.status === 'paused' && (event.type === 'node.suspended' || event.type === 'node.resumed')) {
    return event.type === 'node.resumed' ? withoutInterrupt(next) : next;
  }
  switch (event.type) {
    case 'node.dispatched':
      return withChild(next, event);
    case 'log.appended':
      return withChildEnded(next, event);
    case 'run.paused':
      return { ...next, status: 'paused' };
    case 'run.resumed':
      return { ...next, status: snapshot.interrupt ? waitingStatusFor(snapshot.interrupt.kind) : 'running' };
    case 'node.started':
      return { ...next, currentNodeId: event.nodeId ?? snapshot.currentNodeId };
    case 'interrupt.requested':
      return { ...next, interrupt: pendingInterruptOf(event) };
    case 'node.suspended': {
      const kind = (event.payload as { kind?: InterruptKind }).kind ?? snapshot.interrupt?.kind ?? 'approval';
      return {
        ...next,
        status: waitingStatusFor(kind),
        currentNodeId: event.nodeId ?? snapshot.currentNodeId,
      };
    }
    case 'interrupt.resolved':
      return withoutInterrupt(next);
    case 'interrupt.reassigned':
      return withReassigned(next, event);
    case 'node.resumed':
      return { ...withoutInterrupt(next), status: 'running' };
    case 'run.completed': {
      const outputs = (event.payload as { outputs?: Record<string, unknown> }).outputs ?? {};
      return withoutCurrentNode({
        ...next,
        status: 'completed',
        outputs,
        variables: { ...snapshot.variables, ...outputs },
        completedAt: event.timestamp,
      });
    }
    case 'run.failed':
      return withoutInterrupt({
        ...next,
        status: 'failed',
        error: snapshotError((event.payload as { error?: unknown }).error),
        completedAt: event.timestamp,
      });
    case 'run.cancelled':
      return withoutInterrupt({ ...next, status: 'cancelled', completedAt: event.timestamp });
    default:
      return next;
  }
}

/**
 * An escalation reassigned the pending interrupt (ADR 0034): the snapshot shows its new approvers
 * (`data.approversList`), as the interrupt service holds them.
 */
function withReassigned(s: RunSnapshot, event: RunEventDoc): RunSnapshot {
  const approvers = reassignedApprovers(event, s.interrupt?.interruptId);
  if (!approvers || !s.interrupt) return s;
  const data = typeof s.interrupt.data === 'object' && s.interrupt.data !== null ? s.interrupt.data : {};
  return { ...s, interrupt: { ...s.interrupt, data: { ...data, approversList: approvers } } };
}

/** The approvers an `interrupt.reassigned` names for `interruptId`, or undefined. */
export function reassignedApprovers(
  event: RunEventDoc,
  interruptId: string | undefined,
): string[] | undefined {
  const p = event.payload as { interruptId?: unknown; approvers?: unknown };
  if (event.type !== 'interrupt.reassigned' || interruptId === undefined || p.interruptId !== interruptId) {
    return undefined;
  }
  return Array.isArray(p.approvers)
    ? p.approvers.filter((a): a is string => typeof a === 'string')
    : undefined;
}

/** A run error as the snapshot shows it: `code`, `message` and `details` only (the log keeps `retryable`). */
function snapshotError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
  return { code, message, ...(details !== undefined ? { details } : {}) };
}

/** A child run a node started (`node.dispatched`), listed on the parent as `running`. */
function withChild(s: RunSnapshot, event: RunEventDoc): RunSnapshot {
  const p = event.payload as { childRunId?: unknown; childWorkflowId?: unknown; childStatus?: unknown };
  if (typeof p.childRunId !== 'string') return s;
  const child: ChildRunView = {
    runId: p.childRunId,
    workflowId: String(p.childWorkflowId),
    nodeId: event.nodeId ?? '',
    status: typeof p.childStatus === 'string' ? p.childStatus : 'running',
  };
  return { ...s, childRuns: [...(s.childRuns ?? []).filter((c) => c.runId !== child.runId), child] };
}

/** The engine's record that a child run ended (`log.appended`, `fields.event: child.ended`): its status on the parent. */
function withChildEnded(s: RunSnapshot, event: RunEventDoc): RunSnapshot {
  const f = (event.payload as { fields?: { event?: unknown; childRunId?: unknown; status?: unknown } } | null)
    ?.fields;
  if (f?.event !== 'child.ended' || typeof f.childRunId !== 'string' || !s.childRuns) return s;
  const status = String(f.status);
  return { ...s, childRuns: s.childRuns.map((c) => (c.runId === f.childRunId ? { ...c, status } : c)) };
}

function withoutCurrentNode(s: RunSnapshot): RunSnapshot {
  const { currentNodeId: _drop, interrupt: _gone, ...rest } = s;
  return rest;
}

function withoutInterrupt(s: RunSnapshot): RunSnapshot {
  const { interrupt: _drop, ...rest } = s;
  return rest;
}
