import { OpenWopApiError, OpenWopNetworkError } from './errors';
import type { RawStreamFrame, RunStreamEvent, StreamEventsOptions } from './client.types';
import { RUN_EVENT_TYPES, TERMINAL_RUN_EVENT_TYPES } from './generated/run-events';
import { SseParser } from './sse.parser';

const KNOWN_TYPES: ReadonlySet<string> = new Set(RUN_EVENT_TYPES);

/** Run event types after which the host closes the stream (`rest-endpoints.md` §SSE). */
const TERMINAL_TYPES: ReadonlySet<string> = new Set(TERMINAL_RUN_EVENT_TYPES);

/** What the stream needs from the client: one SSE request, and whether the run has ended. */
export interface StreamTransport {
  open(lastEventId: number | undefined, signal: AbortSignal): Promise<Response>;
  isTerminal(): Promise<boolean>;
}

/**
 * Iterates the run's SSE stream until its terminal event. When the connection drops (or the host
 * closes it early, e.g. on shutdown) it reconnects with `Last-Event-ID` set to the last sequence
 * seen, so no event is lost or repeated; a stream that ends without a terminal event after the run
 * ended is finished too. Stops quietly when `signal` aborts.
 *
 * @throws {@link OpenWopApiError} on a non-2xx answer (not retried: 404, 401, 400 do not heal);
 *   {@link OpenWopNetworkError} after `maxReconnects` failed attempts in a row.
 */
export async function* streamRunEvents(
  transport: StreamTransport,
  options: StreamEventsOptions = {},
): AsyncGenerator<RunStreamEvent> {
  let last = options.after;
  let failures = 0;
  const maxReconnects = options.maxReconnects ?? 10;
  const baseDelay = options.reconnectDelayMs ?? 250;
  for (;;) {
    if (options.signal?.aborted) return;
    const controller = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    let received = false;
    try {
      const res = await transport.open(last, signal);
      if (!res.body) throw new OpenWopNetworkError('The event stream has no body.');
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const message of parser.push(decoder.decode(value, { stream: true }))) {
            const frame = toFrame(message.id, message.event, message.data);
            received = true;
            failures = 0;
            for (const event of unpack(frame)) {
              yield event;
              if (isTerminalEvent(event)) return;
            }
            if (frame.id !== undefined) last = frame.id;
          }
        }
      } finally {
        controller.abort();
        reader.releaseLock();
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      if (error instanceof OpenWopApiError && !(error instanceof OpenWopNetworkError)) throw error;
    }
    if (!received && (await transport.isTerminal().catch(() => false))) return;
    if (!received && ++failures > maxReconnects) {
      throw new OpenWopNetworkError(`The event stream failed ${failures} times in a row.`);
    }
    await sleep(Math.min(5_000, baseDelay * 2 ** Math.max(0, failures - 1)), options.signal);
  }
}

function toFrame(id: string | undefined, event: string, data: string): RawStreamFrame {
  let parsed: unknown = data;
  try {
    parsed = JSON.parse(data);
  } catch {
    // not JSON: hand the text over as it came
  }
  const seq = id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
  return { ...(seq !== undefined ? { id: seq } : {}), event, data: parsed };
}

/**
 * The typed frames of one SSE frame: one, or one per document of an `event: batch` frame (whose
 * documents carry their own sequence; a `messages` chunk comes as a document of type
 * `ai.message.chunk` holding the chunk).
 */
export function unpack(frame: RawStreamFrame): RunStreamEvent[] {
  if (frame.event !== 'batch' || !Array.isArray(frame.data)) return [classifyFrame(frame)];
  return frame.data.map((doc: unknown) => {
    const d = (typeof doc === 'object' && doc !== null ? doc : {}) as {
      type?: unknown;
      sequence?: unknown;
      payload?: unknown;
    };
    const id = typeof d.sequence === 'number' ? d.sequence : frame.id;
    const type = typeof d.type === 'string' ? d.type : 'batch';
    const data = type === 'ai.message.chunk' ? d.payload : doc;
    return classifyFrame({ ...(id !== undefined ? { id } : {}), event: type, data });
  });
}

/**
 * Types one SSE frame by what its data is: a run event of a known type (by `data.type`), the
 * `values` snapshot, a `messages` chunk, or `unknown` (a newer event type, data that is not JSON).
 * Frame names differ between hosts and modes (a mixed stream may name frames by mode), so the data
 * decides where it can.
 */
export function classifyFrame(frame: RawStreamFrame): RunStreamEvent {
  const data = frame.data as {
    type?: unknown;
    payload?: unknown;
    sequence?: unknown;
    chunk?: unknown;
  } | null;
  const base = { ...(frame.id !== undefined ? { id: frame.id } : {}), event: frame.event };
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    if (typeof data.type === 'string' && 'payload' in data && typeof data.sequence === 'number') {
      if (data.type === 'state.snapshot') return { ...base, type: 'state.snapshot', data } as RunStreamEvent;
      if (KNOWN_TYPES.has(data.type)) return { ...base, type: data.type, data } as RunStreamEvent;
    } else if (
      typeof data.chunk === 'string' &&
      (frame.event === 'ai.message.chunk' || frame.event === 'messages')
    ) {
      return { ...base, type: 'ai.message.chunk', data } as RunStreamEvent;
    }
  }
  return { ...base, type: 'unknown', data: frame.data };
}

/** Whether the frame carries a terminal run event (by the data's type, else the frame's name). */
export function isTerminalEvent(event: RawStreamFrame | RunStreamEvent): boolean {
  const type = (event.data as { type?: unknown } | null)?.type;
  return TERMINAL_TYPES.has(typeof type === 'string' ? type : event.event);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
