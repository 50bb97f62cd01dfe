import { describeError } from '../shared/dead-letter.mapper';

/** No broker of `brokers` answered (`KAFKA_BROKERS`), after the client's connection retries. */
export class BrokerUnreachableError extends Error {
  constructor(
    readonly brokers: readonly string[],
    cause: unknown,
  ) {
    super(
      `no Kafka broker answered at ${brokers.join(',')} (KAFKA_BROKERS); ` +
        `start the local one with 'bash tools/kafka/kafka.sh start'. Cause: ${describeError(rootCause(cause))}`,
      { cause },
    );
    this.name = 'BrokerUnreachableError';
  }
}

/** True when an error (or one of its causes) is a kafkajs connection failure. */
export function isConnectionFailure(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e.name === 'KafkaJSConnectionError' || e.name === 'KafkaJSBrokerNotFound') return true;
    if (e.name === 'KafkaJSNonRetriableError' && /ECONNREFUSED|Connection (error|timeout)/.test(e.message))
      return true;
  }
  return false;
}

function rootCause(error: unknown): unknown {
  let e = error;
  while (e instanceof Error && e.cause !== undefined) e = e.cause;
  return e;
}
