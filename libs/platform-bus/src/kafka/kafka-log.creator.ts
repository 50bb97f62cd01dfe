import { logLine } from '@openwop/observability';
import { logLevel, type LogEntry, type logCreator } from 'kafkajs';

/**
 * kafkajs's entries as lines of the app's logger (context `kafkajs`, the entry's fields beside the
 * message), minus one: the broker's REBALANCE_IN_PROGRESS answer to a
 * heartbeat, which kafkajs logs as an ERROR although every join or leave of a group member
 * causes it and the consumer simply rejoins (kafkajs still logs that rejoin as a WARN).
 */
export const kafkaLogCreator: logCreator = () => (entry) => {
  if (isRoutineRebalance(entry)) return;
  const prefix = entry.namespace ? `[${entry.namespace}] ` : '';
  const { message, timestamp: _timestamp, logger: _logger, ...fields } = entry.log as LogEntry['log'] & { timestamp?: unknown; logger?: unknown };
  const level = entry.level === logLevel.ERROR ? 'error' : entry.level === logLevel.WARN ? 'warn' : 'log';
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
