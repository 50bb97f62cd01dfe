import { ApiError } from '../common/api.error';

/** The four stream modes of stream-modes.md, in the order `details.supported` lists them. */
export const STREAM_MODES = ['updates', 'values', 'messages', 'debug'] as const;

/** One stream mode. */
export type StreamMode = (typeof STREAM_MODES)[number];

/** The mode a stream uses when `?streamMode=` is absent (stream-modes.md §Mode selection). */
export const DEFAULT_STREAM_MODE: StreamMode = 'updates';

/**
 * Event types `updates` admits: the spec's mode→event table, with both spellings of the
 * deployment events, plus the RFC 0005 conversation events — each is a suspension transition
 * (`conversation.exchanged` moves the run to `waiting-approval`), which `updates` exists to show —
 * and the claim changes of a waiting interrupt (ADR 0035), so a second approver watching the run
 * sees who works on it.
 */
const UPDATES: ReadonlySet<string> = new Set([
  'run.started',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.paused',
  'run.resumed',
  'run.annotated',
  'workspace.updated',
  'node.completed',
  'node.failed',
  'node.skipped',
  'node.suspended',
  'node.dispatched',
  'approval.requested',
  'approval.received',
  'clarification.requested',
  'clarification.resolved',
  'interrupt.requested',
  'interrupt.resolved',
  'interrupt.claimed',
  'interrupt.released',
  'artifact.created',
  'eval.started',
  'eval.scored',
  'eval.completed',
  'deployment.promoted',
  'deployment.rolledBack',
  'deployment.rolled-back',
  'deployment.canaryAdjusted',
  'deployment.canary.adjusted',
  'deployment.stateChanged',
  'deployment.state.changed',
  'conversation.opened',
  'conversation.exchanged',
  'conversation.closed',
]);

/**
 * Event types `messages` admits: the streamed agent tokens (`output.chunk` on the log, sent as
 * `ai.message.chunk`, see {@link messageChunkOf}) and the RFC 0005 conversation events, so a chat
 * client sees each recorded turn alongside the tokens that produced it.
 */
const MESSAGES: ReadonlySet<string> = new Set([
  'ai.message.chunk',
  'output.chunk',
  'conversation.opened',
  'conversation.exchanged',
  'conversation.closed',
]);

/** The SSE event name of a streamed chunk in `messages` mode (stream-modes.md §messages). */
export const MESSAGE_CHUNK_EVENT = 'ai.message.chunk';

/**
 * The `ai.message.chunk` data of an `output.chunk` run event: its `outputChunk` payload, with the
 * run id and (when the payload lacks it) the node id filled from the event.
 */
export function messageChunkOf(event: {
  readonly runId: string;
  readonly nodeId?: string;
  readonly payload: unknown;
}): Record<string, unknown> {
  const payload = (event.payload ?? {}) as Record<string, unknown>;
  return { ...payload, nodeId: payload.nodeId ?? event.nodeId, runId: event.runId };
}

/** Whether `mode` emits events of `type` (for `values`: whether the event triggers a snapshot). */
export function modeAdmits(mode: StreamMode, type: string): boolean {
  switch (mode) {
    case 'updates':
    case 'values':
      return UPDATES.has(type);
    case 'messages':
      return MESSAGES.has(type);
    case 'debug':
      return true;
  }
}

/**
 * Parses `?streamMode=`: one mode or a comma-separated list; absent means `updates`. Duplicates
 * collapse; `values` may not be combined with another mode.
 *
 * @throws {@link ApiError} `unsupported_stream_mode` (400) with `details.supported`.
 */
export function parseStreamModes(
  raw: unknown,
  fallback: StreamMode = DEFAULT_STREAM_MODE,
): readonly StreamMode[] {
  if (raw === undefined) return [fallback];
  if (typeof raw !== 'string') throw unsupported('streamMode must be given once, as a string');
  const names = raw.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(STREAM_MODES as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw unsupported(`Server does not implement streamMode='${unknown.join(',') || raw}'`);
  const modes = [...new Set(names as StreamMode[])];
  if (modes.length > 1 && modes.includes('values'))
    throw unsupported("streamMode 'values' cannot be combined with another mode");
  return modes;
}

/**
 * The first of `modes` that admits `type`, or `undefined` when none does: it decides whether the
 * event is sent and in which form (`messages` sends an `output.chunk` as `ai.message.chunk`). Frames
 * are named by event type in mixed subscriptions too, not by this mode (ADR 0022).
 */
export function admittingMode(modes: readonly StreamMode[], type: string): StreamMode | undefined {
  return modes.find((mode) => modeAdmits(mode, type));
}

function unsupported(message: string): ApiError {
  return new ApiError('unsupported_stream_mode', message, { supported: [...STREAM_MODES] });
}
