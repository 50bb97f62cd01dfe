import { OpenWopApiError, OpenWopNetworkError } from './errors';
import type { RunStreamEvent, StreamEventsOptions } from './client.types';
import { SseParser } from './sse.parser';

/** Run event types after which the host closes the stream (`rest-endpoints.md` §SSE). */
const TERMINAL_TYPES: ReadonlySet<string> = new Set(['run.completed', 'run.failed', 'run.cancelled']);

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
            const event = toEvent(message.id, message.event, message.data);
            if (event.id !== undefined) last = event.id;
            received = true;
            failures = 0;
            yield event;
            if (isTerminalEvent(event)) return;
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

function toEvent(id: string | undefined, event: string, data: string): RunStreamEvent {
  let parsed: unknown = data;
  try {
    parsed = JSON.parse(data);
  } catch {
    // not JSON: hand the text over as it came
  }
  const seq = id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
  return { ...(seq !== undefined ? { id: seq } : {}), event, data: parsed };
}

/** Whether the frame carries a terminal run event (frames of a mixed stream are labelled by mode). */
export function isTerminalEvent(event: RunStreamEvent): boolean {
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
