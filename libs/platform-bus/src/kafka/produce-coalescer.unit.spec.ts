import { groupByTopic, ProduceCoalescer, type TopicMessages } from './produce-coalescer';

/** A send whose requests the test completes by hand, recording each request. */
function manualSend() {
  const requests: TopicMessages<string>[][] = [];
  const pending: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  const send = (batch: readonly TopicMessages<string>[]) =>
    new Promise<void>((resolve, reject) => {
      requests.push(batch.map((t) => ({ topic: t.topic, messages: [...t.messages] })));
      pending.push({ resolve, reject });
    });
  const settle = async (outcome: 'ok' | Error) => {
    const next = pending.shift();
    if (!next) throw new Error('no request in flight');
    if (outcome === 'ok') next.resolve();
    else next.reject(outcome);
    await new Promise((r) => setImmediate(r));
  };
  return { send, requests, settle, inFlight: () => pending.length };
}

/** The end of the current turn of the event loop, when the coalescer sends what was published in it. */
const turn = () => new Promise((r) => setImmediate(r));

describe('ProduceCoalescer', () => {
  it('sends a lone publish at the end of the turn, in a request of its own', async () => {
    const m = manualSend();
    const c = new ProduceCoalescer(m.send);
    const done = c.publish('t', ['a']);
    expect(m.requests).toHaveLength(0);
    await turn();
    expect(m.requests).toEqual([[{ topic: 't', messages: ['a'] }]]);
    await m.settle('ok');
    await expect(done).resolves.toBeUndefined();
  });

  it('sends the publishes made while a request is in flight together in the next, in call order', async () => {
    const m = manualSend();
    const c = new ProduceCoalescer(m.send);
    const first = c.publish('runs', ['r1']);
    await turn();
    const waiting = [c.publish('runs', ['r2', 'r3']), c.publish('cmds', ['c1']), c.publish('runs', ['r4'])];
    expect(m.requests).toHaveLength(1);
    await m.settle('ok');
    await first;
    expect(m.requests).toHaveLength(2);
    expect(m.requests[1]).toEqual([
      { topic: 'runs', messages: ['r2', 'r3', 'r4'] },
      { topic: 'cmds', messages: ['c1'] },
    ]);
    await m.settle('ok');
    await expect(Promise.all(waiting)).resolves.toHaveLength(3);
    expect(m.inFlight()).toBe(0);
  });

  it('sends the publishes of one turn (a decision’s outbox rows, then its reply) in one request, in call order', async () => {
    const m = manualSend();
    const c = new ProduceCoalescer(m.send);
    const events = c.publish('run-events', ['e1', 'e2']);
    const command = c.publish('interrupt-commands', ['open']);
    await Promise.resolve(); // a reply made a few promise steps later, still in the same turn
    const reply = c.publish('replies', ['ok']);
    await turn();
    expect(m.requests).toEqual([
      [
        { topic: 'run-events', messages: ['e1', 'e2'] },
        { topic: 'interrupt-commands', messages: ['open'] },
        { topic: 'replies', messages: ['ok'] },
      ],
    ]);
    await m.settle('ok');
    await expect(Promise.all([events, command, reply])).resolves.toHaveLength(3);
  });

  it('fails only the publish whose messages the broker refuses, retrying the others alone', async () => {
    const m = manualSend();
    const c = new ProduceCoalescer(m.send);
    const first = c.publish('t', ['head']);
    await turn();
    const good = c.publish('t', ['good']);
    const bad = c.publish('t', ['too-large']);
    const bad$ = expect(bad).rejects.toThrow('message too large');
    await m.settle('ok');
    await first;
    await m.settle(new Error('message too large')); // the request holding both
    expect(m.requests.slice(2)).toEqual([[{ topic: 't', messages: ['good'] }]]);
    await m.settle('ok');
    expect(m.requests.slice(3)).toEqual([[{ topic: 't', messages: ['too-large'] }]]);
    await m.settle(new Error('message too large'));
    await expect(good).resolves.toBeUndefined();
    await bad$;
  });

  it('rejects a lone failed publish without sending it again', async () => {
    const m = manualSend();
    const c = new ProduceCoalescer(m.send);
    const p = c.publish('t', ['x']);
    await turn();
    const rejected = expect(p).rejects.toThrow('broker down');
    await m.settle(new Error('broker down'));
    await rejected;
    expect(m.requests).toHaveLength(1);
    // and the next publish is sent normally
    const next = c.publish('t', ['y']);
    await turn();
    expect(m.requests).toHaveLength(2);
    await m.settle('ok');
    await expect(next).resolves.toBeUndefined();
  });
});

describe('groupByTopic', () => {
  it('keeps one entry per topic in first-seen order with messages in publish order', () => {
    expect(
      groupByTopic([
        { topic: 'b', messages: [1] },
        { topic: 'a', messages: [2, 3] },
        { topic: 'b', messages: [4] },
      ]),
    ).toEqual([
      { topic: 'b', messages: [1, 4] },
      { topic: 'a', messages: [2, 3] },
    ]);
  });
});
