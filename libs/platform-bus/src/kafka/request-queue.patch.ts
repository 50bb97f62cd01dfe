import { createRequire } from 'node:module';

/** The kafkajs release whose request queue {@link patchKafkajsRequestQueue} corrects. */
export const PATCHED_KAFKAJS_VERSION = '2.2.4';

/** kafkajs' own period of the pending-request check while requests wait (`CHECK_PENDING_REQUESTS_INTERVAL`). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** What the correction reads and replaces of kafkajs' `RequestQueue` (one per broker connection). */
export interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

let applied: boolean | undefined;

/**
 * Stops kafkajs 2.2.4 from running a timer every millisecond on every broker connection.
 *
 * Its `RequestQueue.scheduleCheckPendingRequests` arms a timer after every check of the queue,
 * also when no request is waiting: the delay is then `throttledUntil - now`, negative, so the timer
 * fires after 1 ms, checks an empty queue and arms the next one. Every connection that ever got
 * a response (each consumer's, the producer's, the admin client's) does this for as long as it is
 * open (kafkajs issues #1556, #1604 and #1704; the fix of its pull request #1667 was never
 * released). Measured on an idle stack: ~600 wake-ups and ~30 ms of CPU per second in every
 * service process, more than all its consumers, polls and heartbeats together.
 *
 * The replacement arms the timer only while requests wait, as before: at the end of the
 * client-side throttle, or every 10 ms when only the in-flight limit holds them (a response also
 * sends the next one, through `fulfillRequest`). With nothing waiting there is nothing for a check to
 * send, and `push` schedules one when a request starts to wait, so no request waits longer than
 * before.
 *
 * Applied once per process, only to the version it was written for.
 * @returns whether the installed kafkajs is that version (and so is corrected).
 */
export function patchKafkajsRequestQueue(): boolean {
  if (applied !== undefined) return applied;
  const load = createRequire(__filename);
  const { version } = load('kafkajs/package.json') as { version: string };
  if (version !== PATCHED_KAFKAJS_VERSION) {
    applied = false;
    return applied;
  }
  const RequestQueue = load('kafkajs/src/network/requestQueue/index.js') as {
    prototype: RequestQueueInternals;
  };
  RequestQueue.prototype.scheduleCheckPendingRequests = function (this: RequestQueueInternals) {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
    );
  };
  applied = true;
  return applied;
}
