/**
 * The largest message, in bytes (key, JSON value and headers, UTF-8), that any service puts on the
 * bus. Kafka refuses a record batch past the broker's `message.max.bytes` (1,048,588 by default) as
 * `MESSAGE_TOO_LARGE`, for good: a row of the transactional outbox that large would be retried for
 * ever and hold back every row after it, every run of every tenant. 960 KiB leaves room for the
 * batch's own framing under the default, so the host runs on a stock broker. Both bus adapters keep
 * the same bound, so the embedded host refuses what the distributed one would.
 */
export const MAX_BUS_MESSAGE_BYTES = 960 * 1024;

/** Bytes a record costs beyond its key, value and headers in a Kafka record batch (an upper bound). */
const RECORD_OVERHEAD_BYTES = 64;

/**
 * A message past {@link MAX_BUS_MESSAGE_BYTES}: a decision that would emit it is not applied (the
 * command is answered `command_not_applied` and the run it belongs to fails), a request that large is
 * `413 payload_too_large`. Never transient: the same message is as large on every attempt.
 */
export class MessageTooLargeError extends Error {
  constructor(
    readonly topic: string,
    readonly key: string,
    readonly bytes: number,
    readonly limitBytes: number = MAX_BUS_MESSAGE_BYTES,
  ) {
    super(`a message of ${bytes} bytes for ${topic} (key ${key}) is over the bus's ${limitBytes}-byte bound`);
    this.name = 'MessageTooLargeError';
  }
}

/** What one message costs in a record batch: key, encoded value, headers and per-record framing. */
export function busMessageBytes(
  key: string,
  valueJson: string,
  headers?: Readonly<Record<string, string>>,
): number {
  let bytes = RECORD_OVERHEAD_BYTES + Buffer.byteLength(key) + Buffer.byteLength(valueJson);
  for (const [name, value] of Object.entries(headers ?? {}))
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 8;
  return bytes;
}

/**
 * @returns the message's size (see {@link busMessageBytes})
 * @throws {@link MessageTooLargeError} past {@link MAX_BUS_MESSAGE_BYTES}
 */
export function assertBusMessageSize(
  topic: string,
  key: string,
  valueJson: string,
  headers?: Readonly<Record<string, string>>,
): number {
  const bytes = busMessageBytes(key, valueJson, headers);
  if (bytes > MAX_BUS_MESSAGE_BYTES) throw new MessageTooLargeError(topic, key, bytes);
  return bytes;
}

/**
 * Splits messages (in order) into consecutive groups of at most `budgetBytes` each, by their
 * `bytes`; a message alone over the budget is a group of its own. A send of each group in turn keeps
 * every request under the broker's record batch bound whatever the backlog.
 */
export function groupsWithinBytes<T>(
  items: readonly T[],
  bytes: (item: T) => number,
  budgetBytes: number = MAX_BUS_MESSAGE_BYTES,
): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    const size = bytes(item);
    if (current.length > 0 && used + size > budgetBytes) {
      groups.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
