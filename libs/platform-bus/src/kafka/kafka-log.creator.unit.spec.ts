import { logLevel, type LogEntry } from 'kafkajs';
import { isTransient, TRANSIENT_KAFKA_ERRORS } from './kafka-log.creator';

// kafkajs' table of protocol errors (2.2.4): the source of the texts the creator matches.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { errorCodes } = require('kafkajs/src/protocol/error') as {
  errorCodes: { type: string; message: string; retriable: boolean }[];
};

const entry = (namespace: string, message: string, fields: Record<string, unknown> = {}): LogEntry => ({
  namespace,
  level: logLevel.ERROR,
  label: 'ERROR',
  log: { timestamp: '2026-01-01T00:00:00.000Z', logger: 'kafkajs', message, ...fields },
});

describe('kafkajs lines of a cluster still setting up', () => {
  it('match retriable errors of kafkajs, word for word', () => {
    for (const text of TRANSIENT_KAFKA_ERRORS) {
      expect({ text, retriable: errorCodes.find((e) => e.message === text)?.retriable }).toEqual({
        text,
        retriable: true,
      });
    }
  });

  it('are transient: a response with such an error, a crash on one, the restart', () => {
    expect(
      isTransient(
        entry('Connection', 'Response GroupCoordinator(key: 10, version: 2)', {
          error: 'The group coordinator is not available',
        }),
      ),
    ).toBe(true);
    expect(
      isTransient(
        entry('Connection', 'Response Metadata(key: 3, version: 6)', {
          error:
            'There is no leader for this topic-partition as we are in the middle of a leadership election',
        }),
      ),
    ).toBe(true);
    // What a fresh distributed stack logged five times at `error` (issue 31): a topic just created, the group coordinator not up yet.
    expect(
      isTransient(
        entry('Connection', 'Response Metadata(key: 3, version: 6)', {
          broker: '127.0.0.1:9092',
          error: 'This server does not host this topic-partition',
          correlationId: 5,
          size: 127,
        }),
      ),
    ).toBe(true);
    expect(
      isTransient(entry('Consumer', 'Crash: KafkaJSProtocolError: The group coordinator is not available')),
    ).toBe(true);
    expect(isTransient(entry('Consumer', 'Restarting the consumer in 300ms'))).toBe(true);
  });

  it('anything else stays an error', () => {
    expect(
      isTransient(
        entry('Connection', 'Response Produce(key: 0, version: 7)', {
          error: 'The request included a message larger than the max message size the server will accept',
        }),
      ),
    ).toBe(false);
    expect(isTransient(entry('Consumer', 'Crash: KafkaJSNonRetriableError: boom'))).toBe(false);
    expect(
      isTransient(
        entry('BrokerPool', 'Failed to connect to seed broker, trying another broker from the list'),
      ),
    ).toBe(false);
  });
});
