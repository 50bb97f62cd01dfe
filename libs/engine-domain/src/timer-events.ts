import { TIMER_FIRED, TIMER_SCHEDULED } from '@openwop/contracts';
import type { EventWriter } from './event-writer';
import type { PendingTimer } from './run.state';

/**
 * Records that node `nodeId` waits on the durable timer `timer` (`ctx.sleep`): a node-scoped
 * `log.appended` whose fields name the timer and when it falls due (the command's clock plus
 * `delayMs`). The run stays `running`; the host arms the timer from the run's state.
 */
export function emitTimerScheduled(
  w: EventWriter,
  nodeId: string,
  timer: { readonly key: string; readonly delayMs: number },
): undefined {
  const dueAt = new Date(Date.parse(w.now) + timer.delayMs).toISOString();
  w.emit('log.appended', nodeId, {
    level: 'info',
    message: `waiting ${timer.delayMs} ms on a durable timer`,
    nodeId,
    fields: { event: TIMER_SCHEDULED, timerKey: timer.key, delayMs: timer.delayMs, dueAt },
  });
  return undefined;
}

/** Records that the run's timer fell due: its key counts as answered, so the node goes on when re-executed. */
export function emitTimerFired(w: EventWriter, timer: PendingTimer): void {
  w.emit('log.appended', timer.nodeId, {
    level: 'info',
    message: `durable timer due at ${timer.dueAt} fired`,
    nodeId: timer.nodeId,
    fields: { event: TIMER_FIRED, timerKey: timer.key, dueAt: timer.dueAt, firedAt: w.now },
  });
}
