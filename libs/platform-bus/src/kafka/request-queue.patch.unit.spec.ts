import { createRequire } from 'node:module';
import {
  PATCHED_KAFKAJS_VERSION,
  patchKafkajsRequestQueue,
  type RequestQueueInternals,
} from './request-queue.patch';

// kafkajs' own request queue (one per broker connection), driven without a broker: a "send" records
// the request, `fulfillRequest` stands for the broker's answer.
const load = createRequire(__filename);
type Queue = RequestQueueInternals & {
  push(request: unknown): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
};
const RequestQueue = load('kafkajs/src/network/requestQueue/index.js') as new (options: object) => Queue;

const logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

function queue(maxInFlightRequests: number): {
  queue: Queue;
  sent: number[];
  request: (id: number) => Promise<unknown>;
} {
  const q = new RequestQueue({
    maxInFlightRequests,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'spec',
    broker: '127.0.0.1:9092',
    logger,
  });
  const sent: number[] = [];
  const request = (correlationId: number) =>
    new Promise((resolve, reject) =>
      q.push({
        entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve, reject },
        expectResponse: true,
        sendRequest: () => sent.push(correlationId),
      }),
    );
  return { queue: q, sent, request };
}

const answer = (q: Queue, correlationId: number) =>
  q.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });

/** Resolves once `condition` holds; fails the spec after `ms`. */
async function until(condition: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setImmediate(r));
  }
}

describe('patchKafkajsRequestQueue', () => {
  beforeAll(() => {
    // Fails after a kafkajs upgrade: check whether the new release still re-arms its timer when idle.
    expect(load('kafkajs/package.json').version).toBe(PATCHED_KAFKAJS_VERSION);
    expect(patchKafkajsRequestQueue()).toBe(true);
  });

  it('arms no timer once a request is answered and nothing waits (kafkajs 2.2.4 armed a 1 ms one, forever)', async () => {
    const { queue: q, sent, request } = queue(1);
    const reply = request(1);
    expect(sent).toEqual([1]);
    answer(q, 1);
    await reply;
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('sends a request held by the in-flight limit as soon as the one before is answered', async () => {
    const { queue: q, sent, request } = queue(1);
    const first = request(1);
    const second = request(2);
    expect(sent).toEqual([1]); // the second waits for the first
    answer(q, 1);
    expect(sent).toEqual([1, 2]); // sent by the answer itself, not by a timer
    answer(q, 2);
    await Promise.all([first, second]);
    // The check armed while the second waited fires once, finds nothing and arms no other.
    await until(() => q.throttleCheckTimeoutId === null);
    expect(q.pending).toHaveLength(0);
    q.destroy();
  });

  it('sends a request held by client-side throttling when the throttle ends', async () => {
    const { queue: q, sent, request } = queue(5);
    q.maybeThrottle(30);
    const started = Date.now();
    const reply = request(1);
    expect(sent).toEqual([]);
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    await until(() => sent.length === 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    answer(q, 1);
    await reply;
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });
});
