import type { ResumeRunData } from '@openwop/contracts';
import type { InterruptState } from './interrupt.state';

/** The principal named on a resume the timer decided (no human closed the interrupt). */
export const TIMEOUT_PRINCIPAL = 'system:timeout';

/**
 * What the engine needs to resume the node of a decided interrupt (`run.resume` data), or
 * undefined while the interrupt is pending or was cancelled (cancellation reaches the engine as
 * `run.cancel`). `notes` carries every vote (`approval.received`) and `ask` in recorded order, each
 * naming its node and interrupt, so the engine can write them into the run log before resuming.
 */
export function resumeDecisionOf(state: InterruptState): ResumeRunData | undefined {
  if (state.status !== 'resolved' && state.status !== 'expired') return undefined;
  const { runId, nodeId, interruptId, key } = state.interrupt;
  const notes = state.notes.map((n) => ({ ...n, nodeId, interruptId }));
  const base = { runId, nodeId, interruptId, key, ...(notes.length ? { notes } : {}) };
  return state.status === 'resolved'
    ? {
        ...base,
        outcome: 'resolved',
        resumeValue: state.resumeValue,
        resolvedBy: state.resolvedBy,
        resolvedAt: state.resolvedAt,
      }
    : { ...base, outcome: 'timeout', resolvedBy: TIMEOUT_PRINCIPAL, resolvedAt: state.expiredAt };
}
