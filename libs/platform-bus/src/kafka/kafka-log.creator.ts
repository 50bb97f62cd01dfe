import { logLevel, type LogEntry, type logCreator } from 'kafkajs';

/**
 * kafkajs's own console format, minus one line: the broker's REBALANCE_IN_PROGRESS answer to a
 * heartbeat, which kafkajs logs as an ERROR although every join or leave of a group member
 * causes it and the consumer simply rejoins (kafkajs still logs that rejoin as a WARN).
 */
export const kafkaLogCreator: logCreator = () => (entry) => {
  if (isRoutineRebalance(entry)) return;
  const prefix = entry.namespace ? `[${entry.namespace}] ` : '';
  const line = JSON.stringify({ level: entry.label, ...entry.log, message: `${prefix}${entry.log.message}` });
  if (entry.level === logLevel.ERROR) console.error(line);
  else if (entry.level === logLevel.WARN) console.warn(line);
  else if (entry.level === logLevel.INFO) console.info(line);
  else console.log(line);
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
