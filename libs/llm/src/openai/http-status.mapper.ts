import type { LlmErrorCode } from '../llm-provider.error';

/**
 * Maps a non-2xx HTTP status of a chat-completions endpoint to an error code:
 * 401/403 unauthorized, 429 rate_limited, 408 timeout, 5xx unavailable, any other 4xx
 * bad_request (400, 404 unknown model or path, 422 invalid body, 413 too large, …), and
 * anything else (an unfollowed redirect, an informational status) protocol.
 */
export function errorCodeForStatus(status: number): LlmErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500 && status <= 599) return 'unavailable';
  if (status >= 400 && status <= 499) return 'bad_request';
  return 'protocol';
}

/**
 * How long the server asked the client to wait, in ms: `retry-after-ms` (sent by some
 * OpenAI-compatible servers) wins over `Retry-After`, which is either delay-seconds or an
 * HTTP-date. Undefined when absent or unreadable; never negative.
 */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const millis = headers.get('retry-after-ms');
  if (millis !== null && /^\s*\d+(\.\d+)?\s*$/.test(millis)) return Math.max(0, Number(millis));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
