import { trace } from '@opentelemetry/api';
import type { LoggerService, LogLevel } from '@nestjs/common';

type Write = (line: string) => void;

/**
 * A Nest `LoggerService` writing one JSON object per line: `time`, `level`, `service`, `context`,
 * `msg`, and `trace_id`/`span_id` of the active span when one is recording, so a log line leads to
 * its trace. Errors go to stderr with their `stack`.
 */
export class JsonLogger implements LoggerService {
  private levels: ReadonlySet<LogLevel> = new Set(['log', 'error', 'warn', 'fatal']);

  constructor(
    private readonly service: string,
    private readonly out: Write = (line) => process.stdout.write(line),
    private readonly err: Write = (line) => process.stderr.write(line),
  ) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
  setLogLevels(levels: LogLevel[]): void {
    this.levels = new Set(levels);
  }

  private write(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (!this.levels.has(level)) return;
    // Nest passes the context last; `error` may pass a stack before it.
    const params = [...rest];
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, service: this.service };
    if (context !== undefined) entry.context = context;
    if (message instanceof Error) {
      entry.msg = message.message;
      entry.stack = message.stack;
    } else if (typeof message === 'string') {
      entry.msg = message;
    } else {
      entry.msg = message;
    }
    const stack = params.find((p): p is string => typeof p === 'string' && p.includes('\n    at '));
    if (stack && entry.stack === undefined) entry.stack = stack;
    const span = trace.getActiveSpan()?.spanContext();
    if (span && span.traceId !== '00000000000000000000000000000000') {
      entry.trace_id = span.traceId;
      entry.span_id = span.spanId;
    }
    const line = `${safeJson(entry)}\n`;
    if (level === 'error' || level === 'fatal') this.err(line);
    else this.out(line);
  }
}

/**
 * The logger the apps hand to Nest: JSON lines unless `LOG_FORMAT=pretty`, or `LOG_FORMAT` is unset
 * and stdout is a terminal (then `undefined`: Nest's own coloured console logger).
 */
export function appLogger(service: string, env: NodeJS.ProcessEnv = process.env, tty = process.stdout.isTTY === true): LoggerService | undefined {
  const format = env.LOG_FORMAT?.trim().toLowerCase();
  if (format === 'pretty' || (format !== 'json' && tty)) return undefined;
  return new JsonLogger(service);
}

function safeJson(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry);
  } catch {
    return JSON.stringify({ ...entry, msg: String(entry.msg) });
  }
}
