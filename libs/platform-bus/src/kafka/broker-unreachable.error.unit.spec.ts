import { BrokerUnreachableError, isConnectionFailure, publishFailure } from './broker-unreachable.error';

function kafkaError(name: string, message: string, cause?: Error): Error {
  const e = new Error(message, cause ? { cause } : undefined);
  e.name = name;
  return e;
}

describe('broker failures', () => {
  it('recognises refused, closed and wrapped connections', () => {
    expect(
      isConnectionFailure(
        kafkaError('KafkaJSConnectionError', 'Connection error: connect ECONNREFUSED 127.0.0.1:9092'),
      ),
    ).toBe(true);
    expect(isConnectionFailure(kafkaError('KafkaJSConnectionClosedError', 'Closed connection'))).toBe(true);
    const wrapped = kafkaError(
      'KafkaJSNonRetriableError',
      'wrapped',
      kafkaError('KafkaJSConnectionError', 'Connection error'),
    );
    expect(isConnectionFailure(wrapped)).toBe(true);
    expect(isConnectionFailure(kafkaError('KafkaJSProtocolError', 'Message was too large'))).toBe(false);
  });

  it('turns a publish that met a down or restarting broker into BrokerUnreachableError, and nothing else', () => {
    const brokers = ['127.0.0.1:9092'];
    expect(
      publishFailure(brokers, kafkaError('KafkaJSConnectionClosedError', 'Closed connection')),
    ).toBeInstanceOf(BrokerUnreachableError);
    expect(
      publishFailure(
        brokers,
        kafkaError(
          'KafkaJSProtocolError',
          'There is no leader for this topic-partition as we are in the middle of a leadership election; leader not available',
        ),
      ),
    ).toBeInstanceOf(BrokerUnreachableError);
    const tooLarge = kafkaError(
      'KafkaJSProtocolError',
      'The request included a message larger than the max message size the server will accept',
    );
    expect(publishFailure(brokers, tooLarge)).toBe(tooLarge);
  });
});
