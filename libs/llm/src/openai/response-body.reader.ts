import type { AttemptController } from './attempt.controller';

/**
 * Yields the pieces of a response body as they arrive. The attempt's inactivity timer runs only
 * while waiting for the server, not while the consumer handles a piece. Leaving early (or an
 * error) cancels the body, which closes the connection.
 */
export async function* readBody(
  body: ReadableStream<Uint8Array>,
  attempt: AttemptController,
): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      attempt.arm();
      const { done, value } = await reader.read();
      attempt.disarm();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    attempt.disarm();
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Reads a body as UTF-8 text, keeping at most `limit` characters (the rest is discarded unread). */
export async function readText(
  body: ReadableStream<Uint8Array> | null,
  attempt: AttemptController,
  limit = Number.POSITIVE_INFINITY,
): Promise<string> {
  if (!body) return '';
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for await (const piece of readBody(body, attempt)) {
    text += decoder.decode(piece, { stream: true });
    if (text.length >= limit) return text.slice(0, limit);
  }
  return text + decoder.decode();
}
