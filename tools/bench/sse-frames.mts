import { performance } from 'node:perf_hooks';

/** One server-sent event: its name, its parsed JSON data, and when its bytes arrived (performance.now()). */
export interface SseFrame {
  readonly event: string;
  readonly body: unknown;
  readonly at: number;
}

/**
 * Opens `url` as an event stream and yields its frames as they arrive (frames without data are
 * skipped). Throws when the server refuses the stream.
 */
export async function* sseFrames(url: string, key: string, signal: AbortSignal): AsyncGenerator<SseFrame> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal,
  });
  if (!res.ok || !res.body) throw new Error(`SSE → ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of res.body) {
    const at = performance.now();
    buffer += decoder.decode(bytes as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const l of frame.split('\n')) {
        if (l.startsWith('event:')) event = l.slice(6).trim();
        else if (l.startsWith('data:')) data += l.slice(5).trimStart();
      }
      if (data) yield { event, body: JSON.parse(data), at };
    }
  }
}
