// Import-free on purpose: the SDK's generator (tools/sdk/generate-run-event-types.mts) loads this file directly.

/** The OpenWOP v1 run event types (`run-event.schema.json` `$defs.RunEventType`). */
export const RUN_EVENT_TYPES = [
  'run.started',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.resuming',
  'run.paused',
  'run.resumed',
  'run.restored-from-snapshot',
  'run.dead_lettered',
  'node.started',
  'node.completed',
  'node.failed',
  'node.suspended',
  'node.suspend-failed',
  'node.resumed',
  'node.retried',
  'node.skipped',
  'node.cancelled',
  'approval.requested',
  'approval.received',
  'approval.granted',
  'approval.rejected',
  'approval.overridden',
  'clarification.requested',
  'clarification.resolved',
  'interrupt.requested',
  'interrupt.resolved',
  'interrupt.reminded',
  'interrupt.reassigned',
  'interrupt.claimed',
  'interrupt.released',
  'channel.written',
  'artifact.created',
  'output.chunk',
  'variable.changed',
  'log.appended',
  'version.pinned',
  'workflow.restored',
  'workflow.loopback-limit',
  'workflow.stalled',
  'cap.breached',
  'lease.acquired',
  'lease.renewed',
  'lease.lost',
  'lease.handed-off',
  'replay.diverged',
  'replay.divergedAtRefusal',
  'agent.reasoned',
  'agent.reasoning.delta',
  'provider.usage',
  'prompt.composed',
  'agent.promptResolved',
  'model.capability.substituted',
  'model.capability.insufficient',
  'envelope.retry.attempted',
  'envelope.retry.exhausted',
  'envelope.refusal',
  'envelope.truncated',
  'envelope.nlToFormat.engaged',
  'envelope.recovery.applied',
  'agent.toolCalled',
  'agent.toolReturned',
  'agent.handoff',
  'agent.decided',
  'agent.invocation.started',
  'agent.invocation.completed',
  'eval.started',
  'eval.scored',
  'eval.completed',
  'deployment.promoted',
  'deployment.rolled-back',
  'deployment.canary.adjusted',
  'deployment.state.changed',
  'runOrchestrator.decided',
  'node.dispatched',
  'conversation.opened',
  'conversation.exchanged',
  'conversation.closed',
  'memory.compacted',
  'memory.written',
  'agent.memory.consolidated',
  'commitment.fired',
  'workspace.updated',
  'core.workflowChain.event',
  'core.workflowChain.confidence-escalated',
  'connector.authorized',
  'connector.auth_expired',
  'authorization.decided',
] as const;

export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/**
 * The era key of a v1 run's event log (`eventLogSchemaVersion`): version-negotiation says every
 * persisted run document carries it, and v1's current value is 2; v2 persistence.md reads an absent
 * value as 2 too.
 */
export const V1_EVENT_LOG_SCHEMA_VERSION = 2;

/**
 * The era key a run's `run.started` payload names, when it names an integer ≥ 2; else
 * {@link V1_EVENT_LOG_SCHEMA_VERSION} (absent ⇒ 2, never backfilled into the log).
 */
export function eventLogSchemaVersionOf(runStartedPayload: unknown): number {
  const named = (runStartedPayload as { eventLogSchemaVersion?: unknown } | null | undefined)
    ?.eventLogSchemaVersion;
  return typeof named === 'number' && Number.isInteger(named) && named >= 2
    ? named
    : V1_EVENT_LOG_SCHEMA_VERSION;
}

/** Terminal run event types: a run that emitted one of these never emits again. */
export const TERMINAL_RUN_EVENT_TYPES: readonly RunEventType[] = [
  'run.completed',
  'run.failed',
  'run.cancelled',
];

/** A persisted run event (`RunEventDoc`); the value of every message on the run-events topic. */
export interface RunEventDoc<TPayload = unknown> {
  readonly eventId: string;
  readonly runId: string;
  readonly nodeId?: string;
  readonly type: RunEventType;
  readonly payload: TPayload;
  readonly timestamp: string;
  /** Gapless per run, first event 0. */
  readonly sequence: number;
  readonly schemaVersion?: number;
  readonly engineVersion?: string;
  readonly causationId?: string;
}
