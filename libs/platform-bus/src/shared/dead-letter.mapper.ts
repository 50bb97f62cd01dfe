import { Headers } from '@openwop/contracts';
import type { IncomingMessage, OutgoingMessage } from '../bus.port';

const MAX_REASON_LENGTH = 1000;

/**
 * The dead-letter copy of a message that failed its bounded retries: same key, value and headers,
 * plus the reason, the source topic and the number of attempts.
 */
export function deadLetterOf(message: IncomingMessage, error: unknown, attempts: number): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      [Headers.deadLetterReason]: describeError(error).slice(0, MAX_REASON_LENGTH),
      [Headers.deadLetterTopic]: message.topic,
      [Headers.attempts]: String(attempts),
    },
  };
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}
