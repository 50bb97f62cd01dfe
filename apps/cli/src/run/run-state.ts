import type { RunSnapshotBody } from '@openwop/sdk';
import { text } from '../util/text';

// What a run waits for is named by its pending interrupt's kind rather than by its status: the wire
// status of a run waiting on a conversation turn is `waiting-approval` (`interrupt.md`, "Run-status
// during conversation"), which would tell a person at the terminal the wrong thing.

/**
 * `{waitingFor}` for an NDJSON record when the run waits on an interrupt, else nothing: the
 * interrupt's kind, every `conversation.*` kind as `conversation`.
 */
export function waitingFor(run: RunSnapshotBody): { waitingFor?: string } {
  const kind = run.interrupt?.kind;
  if (kind === undefined || !run.status.startsWith('waiting')) return {};
  return { waitingFor: kind.startsWith('conversation') ? 'conversation' : kind };
}

/** "waits for …  at step N", or "is <status> [at step N]" when it waits on nothing. */
export function runStateText(run: RunSnapshotBody): string {
  const node = run.interrupt?.nodeId ?? run.currentNodeId;
  const at = node ? ` at step ${node}` : '';
  const waiting = waitingFor(run).waitingFor;
  if (waiting === undefined) return `is ${run.status}${at}`;
  const data = (run.interrupt?.data ?? {}) as Record<string, unknown>;
  switch (waiting) {
    case 'conversation':
      return `waits for a turn in the conversation${at}`;
    case 'approval':
      return `waits for an approval${at}`;
    case 'clarification':
      return `waits for answers${at}`;
    case 'external-event':
      return `waits for external event ${text(data.eventType)}${at}`;
    default:
      return `waits for input (${waiting})${at}`;
  }
}
