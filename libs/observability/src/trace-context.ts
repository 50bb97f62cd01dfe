import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { Attr } from './attributes';
import { tracingEnabled } from './telemetry';

/** The W3C trace context headers (`traceparent`, `tracestate`) as message headers carry them. */
export interface TraceHeaders {
  traceparent?: string;
  tracestate?: string;
}

const TRACER = 'openwop';
const getter = {
  keys: (carrier: Readonly<Record<string, string>>) => Object.keys(carrier),
  get: (carrier: Readonly<Record<string, string>>, key: string) => carrier[key],
};

/** The active trace context as headers; empty when tracing is off or no span is active. */
export function activeTraceHeaders(): TraceHeaders {
  if (!tracingEnabled()) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const out: TraceHeaders = {};
  if (carrier.traceparent) out.traceparent = carrier.traceparent;
  if (carrier.tracestate) out.tracestate = carrier.tracestate;
  return out;
}

/**
 * `headers` plus the active trace context, unless they already carry one (a message relayed from
 * the outbox keeps the context of the transaction that wrote it). Returns `headers` itself when
 * there is nothing to add, so the hot path allocates nothing with tracing off.
 */
export function withTraceHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Readonly<Record<string, string>> | undefined {
  if (!tracingEnabled() || headers?.traceparent !== undefined) return headers;
  const trace = activeTraceHeaders();
  if (trace.traceparent === undefined) return headers;
  return { ...headers, ...trace };
}

/** The context a message's headers carry (the root context when they carry none). */
export function extractTraceContext(headers: Readonly<Record<string, string>>): Context {
  return propagation.extract(ROOT_CONTEXT, headers, getter);
}

export interface ConsumeSpanInfo {
  readonly system: 'kafka' | 'in-process';
  readonly topic: string;
  readonly partition: number;
  readonly group: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Runs a message handler inside a CONSUMER span `process <topic>` whose parent is the context the
 * message's headers carry, so one trace follows a request across every bus hop. With tracing off
 * it just runs `fn`.
 */
export function inConsumeSpan<T>(info: ConsumeSpanInfo, fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  const parent = extractTraceContext(info.headers);
  const span = trace.getTracer(TRACER).startSpan(
    `process ${info.topic}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        [Attr.messagingSystem]: info.system,
        [Attr.messagingDestination]: info.topic,
        [Attr.messagingGroup]: info.group,
        [Attr.messagingPartition]: String(info.partition),
        [Attr.messagingOperation]: 'process',
      },
    },
    parent,
  );
  return endWith(span, context.with(trace.setSpan(parent, span), fn));
}

/** Runs `fn` in an INTERNAL child span of the active one (a plain call with tracing off). */
export function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  const span = trace.getTracer(TRACER).startSpan(name, { attributes });
  return endWith(span, context.with(trace.setSpan(context.active(), span), fn));
}

/** Adds attributes to the active span, if one is recording. */
export function annotateActiveSpan(attributes: Attributes): void {
  if (!tracingEnabled()) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Tags the active span with the conversation and, when known, the turn it handles. */
export function annotateConversation(conversationId: unknown, turnIndex?: unknown): void {
  if (!tracingEnabled() || typeof conversationId !== 'string') return;
  const attributes: Attributes = { [Attr.conversationId]: conversationId };
  if (typeof turnIndex === 'number') attributes[Attr.turnIndex] = turnIndex;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Runs `fn` outside any trace (a background loop must not inherit the context of whoever woke it). */
export function detachedFromTrace<T>(fn: () => T): T {
  if (!tracingEnabled()) return fn();
  return context.with(ROOT_CONTEXT, fn);
}

async function endWith<T>(span: Span, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span.end();
  }
}
