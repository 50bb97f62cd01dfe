import { format } from 'node:util';
import { ConsoleLogger, type LoggerService, type LogLevel } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { redactSecrets, redactValue } from './secret-redaction';

type Write = (line: string) => void;

/**
 * A Nest `LoggerService` writing one JSON object per line: `time`, `level`, `service`, `context`,
 * `msg`, and `trace_id`/`span_id` of the active span when one is recording, so a log line leads to
 * its trace. Errors go to stderr with their `stack`. Every field passes through
 * {@link redactValue}: tokens, keys and callback URLs never reach a line (`secret-redaction.ts`).
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
    if (context !== undefined) entry.context = redactSecrets(context);
    if (message instanceof Error) {
      entry.msg = redactSecrets(message.message);
      if (message.stack !== undefined) entry.stack = redactSecrets(message.stack);
    } else {
      entry.msg = redactValue(message);
    }
    const stack = params.find((p): p is string => typeof p === 'string' && p.includes('\n    at '));
    if (stack && entry.stack === undefined) entry.stack = redactSecrets(stack);
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
 * Nest's coloured console logger (the pretty format), with every message, context and stack passed
 * through the same redaction as {@link JsonLogger}.
 */
export class RedactingConsoleLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(
      messages.map((m) => (m instanceof Error ? redactSecrets(m.stack ?? m.message) : redactValue(m))),
      context === undefined ? undefined : redactSecrets(context),
      logLevel,
      writeStreamType,
      typeof errorStack === 'string' ? redactSecrets(errorStack) : redactValue(errorStack),
    );
  }

  protected override printStackTrace(stack: string): void {
    super.printStackTrace(typeof stack === 'string' ? redactSecrets(stack) : stack);
  }
}

/**
 * The logger the apps hand to Nest (`Logger.overrideLogger` and `NestFactory.create({logger})`):
 * JSON lines unless `LOG_FORMAT=pretty`, or `LOG_FORMAT` is unset and stdout is a terminal (then
 * Nest's coloured console). Both redact secrets.
 */
export function appLogger(service: string, env: NodeJS.ProcessEnv = process.env, tty = process.stdout.isTTY === true): LoggerService {
  const format = env.LOG_FORMAT?.trim().toLowerCase();
  // The same levels as the JSON logger: Nest's debug and verbose lines (one per route) stay quiet.
  if (format === 'pretty' || (format !== 'json' && tty)) return new RedactingConsoleLogger({ logLevels: ['log', 'error', 'warn', 'fatal'] });
  return new JsonLogger(service);
}

/** Marks a console {@link redactConsole} already wrapped. */
const REDACTING = Symbol.for('openwop.redacting-console');

/**
 * Routes `console.*` of `target` (the process's console by default) through {@link redactSecrets}:
 * the lines libraries print themselves (the Kafka client, the outbox relay, Express' last-resort
 * error handler) are redacted like the logger's. Idempotent.
 */
export function redactConsole(target: Console = console): void {
  const marked = target as Console & { [REDACTING]?: true };
  if (marked[REDACTING]) return;
  marked[REDACTING] = true;
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    const original = target[method].bind(target);
    target[method] = (...args: unknown[]) => original(redactSecrets(format(...args)));
  }
}

function safeJson(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry);
  } catch {
    return JSON.stringify({ ...entry, msg: String(entry.msg) });
  }
}
