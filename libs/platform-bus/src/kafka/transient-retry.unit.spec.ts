import { isTransientKafkaError, retryTransient } from './transient-retry';

describe('transient Kafka errors', () => {
  it('recognises a loading coordinator and a moved leader, also as a cause', () => {
    expect(
      isTransientKafkaError(
        new Error("The coordinator is loading and hence can't process requests for this group"),
      ),
    ).toBe(true);
    expect(
      isTransientKafkaError(
        new Error('wrapped', { cause: new Error('This server is not the leader for that topic-partition') }),
      ),
    ).toBe(true);
    expect(isTransientKafkaError(new Error('connect ECONNREFUSED 127.0.0.1:9092'))).toBe(false);
  });

  it("recognises kafkajs' offsets lookup on a topic whose partitions the broker does not know yet", () => {
    expect(
      isTransientKafkaError(
        new TypeError("Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined."),
      ),
    ).toBe(true);
    expect(
      isTransientKafkaError(new TypeError("Cannot read properties of undefined (reading 'offset')")),
    ).toBe(false);
  });

  it('retries transient failures until success, and rethrows anything else at once', async () => {
    let calls = 0;
    await expect(
      retryTransient(async () => {
        if (++calls < 3) throw new Error('The coordinator is loading');
        return 'joined';
      }),
    ).resolves.toBe('joined');
    expect(calls).toBe(3);
    let other = 0;
    await expect(
      retryTransient(async () => {
        other++;
        throw new Error('bad request');
      }),
    ).rejects.toThrow('bad request');
    expect(other).toBe(1);
  });

  it('gives up at its deadline', async () => {
    await expect(
      retryTransient(async () => Promise.reject(new Error('not the leader')), 300),
    ).rejects.toThrow('not the leader');
  });
});
