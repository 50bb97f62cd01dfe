/**
 * Errors a fresh or rebalancing cluster answers for a while and then stops answering: the group
 * coordinator still loading `__consumer_offsets`, a partition whose leader moved or is not yet
 * elected. Retrying after a pause succeeds; giving up would crash a service at start.
 */
const TRANSIENT = new RegExp(
  [
    'coordinator is loading',
    'not the coordinator',
    'not the leader',
    'does not host this topic-partition',
    'leader not available',
    'rebalance in progress',
    'coordinator not available',
    // kafkajs 2.2.4 admin.fetchTopicOffsets on a topic whose partition metadata has not reached the
    // broker it asked yet: the offsets answer is empty and kafkajs destructures `undefined`.
    "Cannot destructure property 'partitions'",
  ].join('|'),
  'i',
);

export function isTransientKafkaError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (TRANSIENT.test(e.message)) return true;
  }
  return false;
}

/** Runs `attempt` until it succeeds, retrying transient cluster errors with backoff up to `deadlineMs`. */
export async function retryTransient<T>(attempt: () => Promise<T>, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let delay = 100;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransientKafkaError(error) || Date.now() + delay > deadline) throw error;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 2_000);
    }
  }
}
