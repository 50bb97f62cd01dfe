import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import {
  appLogger,
  JsonLogger,
  RedactingConsoleLogger,
  redactConsole,
  routeProcessOutput,
} from './json.logger';
import { REDACTED } from './secret-redaction';
import { startTelemetry } from './telemetry';

startTelemetry('logger-test', {
  spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const logger = new JsonLogger(
    'svc',
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return {
    logger,
    out: () => out.map((l) => JSON.parse(l) as Record<string, unknown>),
    err: () => err.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line with level, service, context and message', () => {
    const { logger, out } = capture();
    logger.log('engine ready', 'engine');
    expect(out()).toEqual([
      expect.objectContaining({ level: 'info', service: 'svc', context: 'engine', msg: 'engine ready' }),
    ]);
    expect(out()[0]).not.toHaveProperty('trace_id');
  });

  it('adds trace_id and span_id of the active span', () => {
    const { logger, out } = capture();
    const ids = trace.getTracer('t').startActiveSpan('work', (span) => {
      logger.warn('inside', 'ctx');
      span.end();
      return span.spanContext();
    });
    expect(out()[0]).toMatchObject({
      level: 'warn',
      msg: 'inside',
      trace_id: ids.traceId,
      span_id: ids.spanId,
    });
  });

  it('sends errors to stderr with their stack, and honours the levels Nest sets', () => {
    const { logger, out, err } = capture();
    logger.error('failed', 'Error: x\n    at f (file.ts:1:1)', 'ctx');
    expect(err()[0]).toMatchObject({
      level: 'error',
      msg: 'failed',
      context: 'ctx',
      stack: 'Error: x\n    at f (file.ts:1:1)',
    });
    logger.setLogLevels(['error']);
    logger.log('hidden');
    expect(out()).toEqual([]);
  });
});

describe('level names of JSON lines', () => {
  it("writes Nest's log as info and verbose as trace", () => {
    const { logger, out } = capture();
    logger.setLogLevels(['log', 'verbose', 'debug', 'warn']);
    logger.log('a');
    logger.verbose('b');
    logger.debug('c');
    logger.warn('d');
    expect(out().map((l) => l.level)).toEqual(['info', 'trace', 'debug', 'warn']);
  });
});

describe('the pretty format', () => {
  function pretty(run: (logger: RedactingConsoleLogger) => void): string[] {
    const written: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      jest
        .spyOn(stream, 'write')
        .mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true)),
    );
    try {
      run(new RedactingConsoleLogger({ colors: false, logLevels: ['log', 'error', 'warn', 'fatal'] }));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return written
      .join('')
      .split('\n')
      .filter((l) => l !== '');
  }

  it('prints an access line as one line: fields the text already says are not repeated, others follow as key=value', () => {
    const lines = pretty((logger) => {
      logger.log(
        'GET /v1/runs 401 5.506 ms',
        { method: 'GET', route: '/v1/runs', path: '/v1/runs', status: 401, duration_ms: 5.506 },
        'http',
      );
      logger.log(
        'GET /v1/runs/:runId 200 3 ms',
        { method: 'GET', route: '/v1/runs/:runId', path: '/v1/runs/r-1', status: 200, duration_ms: 3 },
        'http',
      );
      logger.warn(
        '[Connection] timeout',
        { broker: '127.0.0.1:9092', error: 'connect ECONNREFUSED' },
        'kafkajs',
      );
    });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/\[http\] GET \/v1\/runs 401 5\.506 ms$/);
    expect(lines[1]).toMatch(/GET \/v1\/runs\/:runId 200 3 ms path=\/v1\/runs\/r-1$/);
    expect(lines[2]).toMatch(/\[Connection\] timeout broker=127\.0\.0\.1:9092 error="connect ECONNREFUSED"$/);
    expect(lines.join('\n')).not.toContain('Object(');
  });

  it("shows Nest's start-up lines only at verbose", () => {
    const quiet = pretty((logger) => {
      logger.log('Starting Nest application...', 'NestFactory');
      logger.log('GatewayModule dependencies initialized', 'InstanceLoader');
      logger.log('Mapped {/v1/runs, GET} route', 'RouterExplorer');
      logger.log('Nest application successfully started', 'NestApplication');
      logger.log('engine ready', 'engine');
    });
    expect(quiet).toHaveLength(1);
    expect(quiet[0]).toContain('engine ready');
    const verbose = pretty((logger) => {
      logger.setLogLevels(['log', 'verbose']);
      logger.log('Starting Nest application...', 'NestFactory');
    });
    expect(verbose.join('\n')).toContain('Starting Nest application...');
  });
});

describe('appLogger', () => {
  it('is JSON unless LOG_FORMAT=pretty, or unset on a terminal (then the redacting console logger)', () => {
    expect(appLogger('s', {}, false)).toBeInstanceOf(JsonLogger);
    expect(appLogger('s', {}, true)).toBeInstanceOf(RedactingConsoleLogger);
    expect(appLogger('s', { LOG_FORMAT: 'pretty' }, false)).toBeInstanceOf(RedactingConsoleLogger);
    expect(appLogger('s', { LOG_FORMAT: 'json' }, true)).toBeInstanceOf(JsonLogger);
  });
});

const TOKEN = 'eyJ2IjoxLCJhbGciOiJIUzI1NiJ9.' + 'M'.repeat(43);
const KEY = 'test_t1_' + 'a'.repeat(24);

describe('secrets never reach a log line', () => {
  it('JsonLogger redacts msg, stack, context and structured messages', () => {
    const { logger, out, err } = capture();
    const error = new Error(`POST /v1/interrupts/${TOKEN} failed`);
    logger.error(
      `POST /v1/interrupts/${TOKEN} failed (correlationId c1): ${error.stack}`,
      error.stack,
      'Gateway',
    );
    logger.error(error);
    logger.log({ headers: { authorization: `Bearer ${KEY}` }, url: `/v1/interrupts/${TOKEN}` }, 'ctx');
    logger.warn(`authorization: Bearer ${KEY}`, `ctx ${TOKEN}`);
    const lines = [...out(), ...err()];
    expect(lines).toHaveLength(4);
    const text = JSON.stringify(lines);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(TOKEN.split('.')[1]);
    expect(text).not.toContain(KEY);
    expect(err()[0]).toMatchObject({
      msg: expect.stringContaining(`/v1/interrupts/${REDACTED} failed`),
      context: 'Gateway',
    });
    expect(err()[1]).toMatchObject({
      msg: `POST /v1/interrupts/${REDACTED} failed`,
      stack: expect.stringContaining(REDACTED),
    });
    expect(out()[0]).toMatchObject({
      msg: { headers: { authorization: REDACTED }, url: `/v1/interrupts/${REDACTED}` },
    });
  });

  it('RedactingConsoleLogger (pretty mode) redacts message, context and stack', () => {
    const written: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      jest
        .spyOn(stream, 'write')
        .mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true)),
    );
    try {
      const logger = new RedactingConsoleLogger({ colors: false });
      logger.log(`GET /v1/interrupts/${TOKEN}`, 'Gateway');
      logger.error(`failed with Bearer ${KEY}`, `Error: x ${TOKEN}\n    at f (file.ts:1:1)`, `ctx ${TOKEN}`);
      logger.warn({ interruptToken: TOKEN, nested: { auth: `Bearer ${KEY}` } });
      logger.error(new Error(`POST /v1/interrupts/${TOKEN} failed`));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const text = written.join('');
    expect(text).toContain(`/v1/interrupts/${REDACTED}`);
    expect(text).toContain(`Bearer ${REDACTED}`);
    expect(text).not.toContain(TOKEN.split('.')[1]);
    expect(text).not.toContain(KEY);
  });

  it('redactConsole routes console.* through the redaction, once', () => {
    const lines: string[] = [];
    const target = {
      log: (l: string) => lines.push(l),
      info: (l: string) => lines.push(l),
      warn: (l: string) => lines.push(l),
      error: (l: string) => lines.push(l),
      debug: (l: string) => lines.push(l),
      trace: (l: string) => lines.push(l),
    } as unknown as Console;
    redactConsole(target);
    redactConsole(target);
    target.error('outbox relay failed', new Error(`publish of /v1/interrupts/${TOKEN}`), {
      authorization: `Bearer ${KEY}`,
    });
    target.log('%s then %o', `Bearer ${KEY}`, { t: TOKEN });
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(TOKEN.split('.')[1]);
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines[0]).toContain('outbox relay failed');
  });
});

describe('routeProcessOutput', () => {
  it('turns console calls of a routed console into logger lines, with their level and the console context', () => {
    const out: string[] = [];
    const err: string[] = [];
    const logger = new JsonLogger(
      'svc',
      (l) => out.push(l),
      (l) => err.push(l),
    );
    const target = {
      log: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      debug: () => undefined,
      trace: () => undefined,
    } as unknown as Console;
    routeProcessOutput(logger, target);
    routeProcessOutput(logger, target);
    target.info('outbox relay %s', 'started');
    target.error('outbox relay failed', new Error('boom'));
    expect(out.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 'info',
        service: 'svc',
        context: 'console',
        msg: 'outbox relay started',
      }),
    ]);
    expect(err).toHaveLength(1);
    expect(JSON.parse(err[0]!)).toMatchObject({ level: 'error', context: 'console' });
    expect((JSON.parse(err[0]!) as { msg: string }).msg).toContain('outbox relay failed Error: boom');
  });

  it('adds the fields of a plain object to the line, never replacing its own', () => {
    const out: string[] = [];
    new JsonLogger('svc', (l) => out.push(l)).warn(
      '[Connection] timeout',
      { broker: '127.0.0.1:9092', msg: 'not this', level: 'x' },
      'kafkajs',
    );
    expect(JSON.parse(out[0]!)).toEqual(
      expect.objectContaining({
        level: 'warn',
        context: 'kafkajs',
        msg: '[Connection] timeout',
        broker: '127.0.0.1:9092',
      }),
    );
  });
});
