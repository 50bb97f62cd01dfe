import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { appLogger, JsonLogger } from './json.logger';
import { startTelemetry } from './telemetry';

startTelemetry('logger-test', { spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] });

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const logger = new JsonLogger('svc', (l) => out.push(l), (l) => err.push(l));
  return { logger, out: () => out.map((l) => JSON.parse(l) as Record<string, unknown>), err: () => err.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line with level, service, context and message', () => {
    const { logger, out } = capture();
    logger.log('engine ready', 'engine');
    expect(out()).toEqual([expect.objectContaining({ level: 'log', service: 'svc', context: 'engine', msg: 'engine ready' })]);
    expect(out()[0]).not.toHaveProperty('trace_id');
  });

  it('adds trace_id and span_id of the active span', () => {
    const { logger, out } = capture();
    const ids = trace.getTracer('t').startActiveSpan('work', (span) => {
      logger.warn('inside', 'ctx');
      span.end();
      return span.spanContext();
    });
    expect(out()[0]).toMatchObject({ level: 'warn', msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
  });

  it('sends errors to stderr with their stack, and honours the levels Nest sets', () => {
    const { logger, out, err } = capture();
    logger.error('failed', 'Error: x\n    at f (file.ts:1:1)', 'ctx');
    expect(err()[0]).toMatchObject({ level: 'error', msg: 'failed', context: 'ctx', stack: 'Error: x\n    at f (file.ts:1:1)' });
    logger.setLogLevels(['error']);
    logger.log('hidden');
    expect(out()).toEqual([]);
  });
});

describe('appLogger', () => {
  it('is JSON unless LOG_FORMAT=pretty, or unset on a terminal', () => {
    expect(appLogger('s', {}, false)).toBeInstanceOf(JsonLogger);
    expect(appLogger('s', {}, true)).toBeUndefined();
    expect(appLogger('s', { LOG_FORMAT: 'pretty' }, false)).toBeUndefined();
    expect(appLogger('s', { LOG_FORMAT: 'json' }, true)).toBeInstanceOf(JsonLogger);
  });
});
