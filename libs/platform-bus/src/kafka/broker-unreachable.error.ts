import { describeError } from '../shared/dead-letter.mapper';
import { isTransientKafkaError } from './transient-retry';

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
    if (
      e.name === 'KafkaJSConnectionError' ||
      e.name === 'KafkaJSConnectionClosedError' ||
      e.name === 'KafkaJSBrokerNotFound'
    )
      return true;
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

/**
 * What a failed publish throws: a {@link BrokerUnreachableError} when the broker is down, restarting
 * or moving leaders (the caller may answer "unavailable, retry later"), else the error itself.
 */
export function publishFailure(brokers: readonly string[], error: unknown): unknown {
  return isConnectionFailure(error) || isTransientKafkaError(error)
    ? new BrokerUnreachableError(brokers, error)
    : error;
}
