import { logLine } from '@openwop/observability';
import { logLevel, type LogEntry, type logCreator } from 'kafkajs';

/**
 * The broker's answers that mean "not yet" while a cluster, a topic or a group is being set up —
 * the coordinator or the partition leader is still being elected or loaded, a topic just created is
 * not yet on every broker — with the text kafkajs gives them (its retriable protocol errors,
 * `kafkajs/src/protocol/error.js`; a unit test holds the two equal). kafkajs retries each of them
 * itself, so they are no errors of ours.
 */
export const TRANSIENT_KAFKA_ERRORS: ReadonlySet<string> = new Set([
  'There is no leader for this topic-partition as we are in the middle of a leadership election',
  'This server is not the leader for that topic-partition',
  'The group coordinator is not available',
  'This is not the correct coordinator for this group',
  "The coordinator is loading and hence can't process requests for this group",
  'This server does not host this topic-partition',
  'This is not the correct controller for this cluster',
]);

/**
 * kafkajs's entries as lines of the app's logger (context `kafkajs`, the entry's fields beside the
 * message), with the level a person should read:
 * - dropped: the broker's REBALANCE_IN_PROGRESS answer to a heartbeat, which kafkajs logs as an
 *   ERROR although every join or leave of a group member causes it and the consumer simply rejoins
 *   (kafkajs still logs that rejoin as a WARN);
 * - `warn` instead of `error`: a request answered with one of {@link TRANSIENT_KAFKA_ERRORS} (a fresh
 *   `stack:up` meets several while its topics and groups are created), a consumer that crashed on
 *   one, and kafkajs' own "Restarting the consumer" — all retried by kafkajs.
 */
export const kafkaLogCreator: logCreator = () => (entry) => {
  if (isRoutineRebalance(entry)) return;
  const prefix = entry.namespace ? `[${entry.namespace}] ` : '';
  const {
    message,
    timestamp: _timestamp,
    logger: _logger,
    ...fields
  } = entry.log as LogEntry['log'] & { timestamp?: unknown; logger?: unknown };
  const level =
    entry.level === logLevel.ERROR
      ? isTransient(entry)
        ? 'warn'
        : 'error'
      : entry.level === logLevel.WARN
        ? 'warn'
        : 'log';
  logLine(level, 'kafkajs', `${prefix}${message}`, fields);
};

function isRoutineRebalance(entry: LogEntry): boolean {
  const error: unknown = entry.log['error'];
  return (
    entry.namespace === 'Connection' &&
    entry.log.message.startsWith('Response Heartbeat') &&
    typeof error === 'string' &&
    error.startsWith('The group is rebalancing')
  );
}

/** An ERROR entry about a condition kafkajs retries on its own (see {@link kafkaLogCreator}). */
export function isTransient(entry: LogEntry): boolean {
  const error: unknown = entry.log['error'];
  const message = entry.log.message;
  if (entry.namespace === 'Connection' && message.startsWith('Response ')) {
    return typeof error === 'string' && TRANSIENT_KAFKA_ERRORS.has(error);
  }
  if (entry.namespace === 'Consumer') {
    if (message.startsWith('Restarting the consumer in ')) return true;
    if (message.startsWith('Crash: '))
      return [...TRANSIENT_KAFKA_ERRORS].some((text) => message.endsWith(`: ${text}`));
  }
  return false;
}
