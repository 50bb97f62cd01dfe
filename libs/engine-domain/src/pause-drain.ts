import { isPauseRequestRecord, PAUSE_REQUESTED, type RunEventDoc } from '@openwop/contracts';
import type { EventWriter } from './event-writer';
import type { PauseRequest } from './run.state';

// A `:pause` with `drainPolicy: drain-current-node` while a node is executing (waiting on a durable
// timer, a child run or an agent turn) is recorded as a run-scoped `log.appended` (`fields.event:
// pause.requested`; the spec's catalogue has no such event, so it is recorded the way timers are);
// `run.paused` follows once that node reached a terminal (rest-endpoints.md §`:pause`).

/** The pause request a `log.appended` records, or `undefined`. */
export function pauseRequestOf(event: Pick<RunEventDoc, 'type' | 'payload'>): PauseRequest | undefined {
  if (!isPauseRequestRecord(event)) return undefined;
  const fields = (event.payload as { fields: Record<string, unknown> }).fields;
  return {
    requestedAt: String(fields.requestedAt),
    requestedBy: String(fields.requestedBy),
    nodeId: String(fields.nodeId),
    ...(typeof fields.reason === 'string' ? { reason: fields.reason } : {}),
  };
}

/** Records that the run pauses once node `nodeId`, executing now, reaches a terminal. */
export function emitPauseRequested(
  w: EventWriter,
  request: { readonly nodeId: string; readonly reason?: string; readonly principal: string },
): void {
  w.emit('log.appended', undefined, {
    level: 'info',
    message: `pause requested (drain-current-node): the run pauses once node ${request.nodeId} reaches a terminal`,
    fields: {
      event: PAUSE_REQUESTED,
      drainPolicy: 'drain-current-node',
      nodeId: request.nodeId,
      requestedAt: w.now,
      requestedBy: request.principal,
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
    },
  });
}

/**
 * Writes `run.paused` (its payload as an immediate pause's, `drainPolicy: drain-current-node`) for
 * the request the run holds, now that the node it waited for reached a terminal; nothing otherwise.
 */
export function emitDrainedPause(w: EventWriter): void {
  const s = w.state;
  const request = s.pauseRequested;
  if (!request) return;
  w.emit('run.paused', undefined, {
    ...(request.reason !== undefined ? { reason: request.reason } : {}),
    drainPolicy: 'drain-current-node',
    pausedAt: w.now,
    pausedBy: request.requestedBy,
  });
}
