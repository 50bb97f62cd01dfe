import { format } from 'node:util';
import { ConsoleLogger, type ConsoleLoggerOptions, type LoggerService, type LogLevel } from '@nestjs/common';
import { diag, DiagLogLevel, trace, type DiagLogger } from '@opentelemetry/api';
import { redactSecrets, redactValue } from './secret-redaction';

type Write = (line: string) => void;

/**
 * A Nest `LoggerService` writing one JSON object per line: `time`, `level`, `service`, `context`,
 * `msg`, and `trace_id`/`span_id` of the active span when one is recording, so a log line leads to
 * its trace. A plain object among the parameters adds its fields to the line (a field of the line
 * itself is never replaced). Errors go to stderr with their `stack`. Every field passes through
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
    const context =
      params.length > 0 && typeof params[params.length - 1] === 'string'
        ? (params.pop() as string)
        : undefined;
    const entry: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: JSON_LEVEL[level],
      service: this.service,
    };
    if (context !== undefined) entry.context = redactSecrets(context);
    if (message instanceof Error) {
      entry.msg = redactSecrets(message.message);
      if (message.stack !== undefined) entry.stack = redactSecrets(message.stack);
    } else {
      entry.msg = redactValue(message);
    }
    const stack = params.find((p): p is string => typeof p === 'string' && p.includes('\n    at '));
    if (stack && entry.stack === undefined) entry.stack = redactSecrets(stack);
    for (const fields of params) {
      if (!isPlainObject(fields)) continue;
      for (const [key, value] of Object.entries(redactValue(fields) as Record<string, unknown>)) {
        if (!(key in entry) && !RESERVED.has(key)) entry[key] = value;
      }
    }
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

/** The `level` of a JSON line: the usual names (`info`, not Nest's `log`; `trace` for `verbose`). */
const JSON_LEVEL: Readonly<Record<LogLevel, string>> = {
  log: 'info',
  error: 'error',
  warn: 'warn',
  debug: 'debug',
  verbose: 'trace',
  fatal: 'fatal',
};

/**
 * Nest's framework lines while an app starts (modules initialized, routes mapped, "successfully
 * started"): in the pretty format they are shown only at `verbose`, so a person sees the app's own
 * lines, not fifteen of Nest's. JSON lines keep them.
 */
const NEST_STARTUP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'NestApplication',
  'RoutesResolver',
  'RouterExplorer',
]);

/**
 * Nest's coloured console logger (the pretty format, for a person at a terminal), with every
 * message, context and stack passed through the same redaction as {@link JsonLogger}. One entry is
 * one line: the structured fields of a line (a plain object among the parameters, such as the
 * access line's `{method, route, status, …}`) are appended as `key=value` for each field the text
 * does not already say, instead of an object dump under it. Nest's start-up lines show only at
 * `verbose` ({@link NEST_STARTUP_CONTEXTS}).
 */
export class RedactingConsoleLogger extends ConsoleLogger {
  /** Nest 12 would lift the plain objects out of a line (`structuredParams`); this logger folds them into it. */
  constructor(options: ConsoleLoggerOptions = {}) {
    super({ ...options, structuredParams: false });
  }

  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && NEST_STARTUP_CONTEXTS.has(context)) this.verbose(message, ...rest);
    else super.log(message, ...rest);
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(
      oneLine(messages).map((m) =>
        m instanceof Error ? redactSecrets(m.stack ?? m.message) : redactValue(m),
      ),
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
 * The messages of one pretty entry: a text followed by plain objects becomes that text with each
 * field it does not already say appended as `key=value` (strings bare when they have no space,
 * anything else as JSON). Other shapes are left to Nest.
 */
export function oneLine(messages: readonly unknown[]): unknown[] {
  const [first, ...rest] = messages;
  if (typeof first !== 'string' || rest.length === 0 || !rest.every(isPlainObject)) return [...messages];
  const said = first;
  const extra: string[] = [];
  for (const fields of rest) {
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      const text = typeof value === 'string' ? value : safeValueJson(value);
      if (text !== '' && said.includes(text)) continue;
      extra.push(
        `${key}=${typeof value === 'string' && !/\s/.test(value) && value !== '' ? value : safeValueJson(value)}`,
      );
    }
  }
  return [extra.length > 0 ? `${first} ${extra.join(' ')}` : first];
}

function safeValueJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Whether the app logs in the pretty format: `LOG_FORMAT=pretty`, or `LOG_FORMAT` unset and stdout a terminal. */
export function isPrettyLogFormat(
  env: NodeJS.ProcessEnv = process.env,
  tty = process.stdout.isTTY === true,
): boolean {
  const format = env.LOG_FORMAT?.trim().toLowerCase();
  return format === 'pretty' || (format !== 'json' && tty);
}

/**
 * The logger the apps hand to Nest (`Logger.overrideLogger` and `NestFactory.create({logger})`):
 * JSON lines unless `LOG_FORMAT=pretty`, or `LOG_FORMAT` is unset and stdout is a terminal (then
 * Nest's coloured console). Both redact secrets.
 */
export function appLogger(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
  tty = process.stdout.isTTY === true,
): LoggerService {
  // The same levels as the JSON logger: Nest's debug and verbose lines (one per route) stay quiet.
  if (isPrettyLogFormat(env, tty))
    return new RedactingConsoleLogger({ logLevels: ['log', 'error', 'warn', 'fatal'] });
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

/** Fields of a line that only the logger sets. */
const RESERVED = new Set(['time', 'level', 'service', 'context', 'msg', 'stack', 'trace_id', 'span_id']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The logger {@link routeProcessOutput} routed the process's console to, if it did. */
let processLogger: LoggerService | undefined;

/**
 * One line from library code with structured `fields` (the Kafka client's entries): through the
 * app's logger once {@link routeProcessOutput} ran, else the console (tests, tools).
 */
export function logLine(
  level: 'log' | 'warn' | 'error',
  context: string,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  if (processLogger) {
    processLogger[level](message, fields, context);
    return;
  }
  const write = level === 'log' ? console.log : level === 'warn' ? console.warn : console.error;
  write(JSON.stringify({ level, context, msg: message, ...fields }));
}

/** Marks a console {@link routeProcessOutput} already routed. */
const ROUTED = Symbol.for('openwop.routed-console');

/**
 * Makes every line the process prints go through `logger` (the app's logger: JSON lines, or the
 * pretty console on a terminal), so nothing reaches stdout or stderr in another format:
 * - `console.*` of `target`, which libraries print with (the Kafka client's log creator, the outbox
 *   relay, Express' last-resort error handler): one line per call, context `console`,
 *   `log`/`info`/`debug` as `log`, `warn` as `warn`, `error`/`trace` as `error`;
 * - Node's process warnings (`process.emitWarning`: deprecations, kafkajs' `TimeoutNegativeWarning`),
 *   context `process`, with the warning's `name` and `code`, instead of Node's `(node:…)` lines;
 * - OpenTelemetry's diagnostics (failed OTLP exports, collection errors), context `opentelemetry`,
 *   at `OTEL_LOG_LEVEL` (default `info`), instead of the SDK's console logger.
 * Everything passes the logger's secret redaction. Idempotent per console.
 */
export function routeProcessOutput(
  logger: LoggerService,
  target: Console = console,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const marked = target as Console & { [ROUTED]?: true };
  if (marked[ROUTED]) return;
  marked[ROUTED] = true;
  if (target === console) processLogger = logger;
  const line =
    (level: 'log' | 'warn' | 'error', context: string) =>
    (message: string, fields?: Record<string, unknown>) => {
      const text = redactSecrets(message);
      if (fields) logger[level](text, fields, context);
      else logger[level](text, context);
    };
  const consoleLine = {
    log: line('log', 'console'),
    warn: line('warn', 'console'),
    error: line('error', 'console'),
  };
  for (const [method, level] of [
    ['log', 'log'],
    ['info', 'log'],
    ['debug', 'log'],
    ['warn', 'warn'],
    ['error', 'error'],
    ['trace', 'error'],
  ] as const) {
    target[method] = (...args: unknown[]) => consoleLine[level](format(...args));
  }
  if (target === console) {
    // Node's own printer of warnings is the listener present before any of ours.
    for (const listener of process.listeners('warning')) process.removeListener('warning', listener);
    const warning = line('warn', 'process');
    process.on('warning', (w: Error & { code?: string }) =>
      warning(`${w.name}: ${w.message}`, {
        warning: w.name,
        ...(w.code !== undefined ? { code: w.code } : {}),
      }),
    );
    diag.setLogger(diagLogger(line), {
      logLevel: diagLevel(env.OTEL_LOG_LEVEL),
      suppressOverrideMessage: true,
    });
  }
}

function diagLogger(
  line: (level: 'log' | 'warn' | 'error', context: string) => (message: string) => void,
): DiagLogger {
  const at = (level: 'log' | 'warn' | 'error') => {
    const write = line(level, 'opentelemetry');
    return (message: string, ...args: unknown[]) =>
      write(args.length > 0 ? format(message, ...args) : message);
  };
  return { error: at('error'), warn: at('warn'), info: at('log'), debug: at('log'), verbose: at('log') };
}

/** `OTEL_LOG_LEVEL` as the SDK reads it (case-insensitive; default `info`). */
function diagLevel(value: string | undefined): DiagLogLevel {
  const levels: Record<string, DiagLogLevel> = {
    none: DiagLogLevel.NONE,
    error: DiagLogLevel.ERROR,
    warn: DiagLogLevel.WARN,
    info: DiagLogLevel.INFO,
    debug: DiagLogLevel.DEBUG,
    verbose: DiagLogLevel.VERBOSE,
    all: DiagLogLevel.ALL,
  };
  return levels[value?.trim().toLowerCase() ?? ''] ?? DiagLogLevel.INFO;
}

function safeJson(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry);
  } catch {
    return JSON.stringify({ ...entry, msg: String(entry.msg) });
  }
}
