import { Headers } from '@openwop/contracts';
import { countDeadLetter } from '@openwop/observability';
import type { DeadLetterCause, DeadLetterHook, IncomingMessage, OutgoingMessage } from '../bus.port';

const MAX_REASON_LENGTH = 1000;
/** The reason as the log line quotes it: enough to recognise the failure, not a whole stack or payload. */
const MAX_LOGGED_REASON_LENGTH = 300;

/**
 * The dead-letter copy of a message that failed its bounded retries: same key, value and headers,
 * plus the reason, the cause, the source topic, the group and the number of attempts.
 */
export function deadLetterOf(
  message: IncomingMessage,
  error: unknown,
  attempts: number,
  cause: DeadLetterCause = 'exhausted',
  group?: string,
): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      [Headers.deadLetterReason]: describeError(error).slice(0, MAX_REASON_LENGTH),
      [Headers.deadLetterCause]: cause,
      [Headers.deadLetterTopic]: message.topic,
      ...(group !== undefined ? { [Headers.deadLetterGroup]: group } : {}),
      [Headers.attempts]: String(attempts),
    },
  };
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

/** The id and type of a message, from its headers or, for a command or event envelope, its value. */
export function identify(message: Pick<IncomingMessage, 'headers' | 'value'>): {
  id?: string;
  type?: string;
} {
  const value = (typeof message.value === 'object' && message.value !== null ? message.value : {}) as Record<
    string,
    unknown
  >;
  const id = message.headers[Headers.messageId] ?? (typeof value.id === 'string' ? value.id : undefined);
  const type =
    message.headers[Headers.messageType] ?? (typeof value.type === 'string' ? value.type : undefined);
  return { ...(id !== undefined ? { id } : {}), ...(type !== undefined ? { type } : {}) };
}

/** The one log line of a dead letter: the key (a run id for run-scoped topics), the message, the reason. */
export function deadLetterLine(
  message: Pick<IncomingMessage, 'headers' | 'value' | 'key' | 'topic'>,
  group: string,
  cause: DeadLetterCause,
  attempts: number,
  reason: string,
): string {
  const { id, type } = identify(message);
  const short =
    reason.length > MAX_LOGGED_REASON_LENGTH ? `${reason.slice(0, MAX_LOGGED_REASON_LENGTH)}…` : reason;
  return (
    `dead-lettered ${type ?? 'message'} ${id ?? '(no id)'} of key ${JSON.stringify(message.key)} ` +
    `from ${message.topic} (group ${group}, ${cause}, ${attempts} attempt${attempts === 1 ? '' : 's'}): ${short}`
  );
}

/** Where dead-letter lines go (stderr by default; tests may listen). */
export const deadLetterLog: { write: (line: string) => void } = {
  write: (line) => console.error(line),
};

export interface DeadLetterArgs {
  readonly publish: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void> | void;
  readonly deadLetterTopic: string;
  readonly group: string;
  readonly message: IncomingMessage;
  readonly cause: DeadLetterCause;
  readonly error: unknown;
  readonly attempts: number;
  readonly onDeadLetter?: DeadLetterHook | undefined;
  /** For cause `refused`: the refusal's code, passed on to `onDeadLetter`. */
  readonly code?: string;
}

/**
 * Sets a message aside, the one way every adapter does it: the dead-letter copy is sent, the
 * dead-letter counter (by source topic, group and cause) goes up, one line is logged, and the
 * subscription's `onDeadLetter` is told. A failed send or hook throws: the caller does not commit
 * the message, so it comes back.
 */
export async function sendToDeadLetter(args: DeadLetterArgs): Promise<void> {
  const letter = deadLetterOf(args.message, args.error, args.attempts, args.cause, args.group);
  await args.publish(args.deadLetterTopic, [letter]);
  countDeadLetter(args.message.topic, args.group, args.cause);
  const reason = letter.headers![Headers.deadLetterReason]!;
  deadLetterLog.write(deadLetterLine(args.message, args.group, args.cause, args.attempts, reason));
  await args.onDeadLetter?.(args.message, {
    cause: args.cause,
    reason,
    attempts: args.attempts,
    ...(args.code !== undefined ? { code: args.code } : {}),
  });
}
