import { setTimeout as delay } from 'node:timers/promises';
import { LlmProviderError } from '../llm-provider.error';

/**
 * Waits `ms` milliseconds, or rejects with an `aborted` {@link LlmProviderError} as soon as
 * `signal` aborts (the timer is cleared, so nothing keeps the process alive).
 */
export async function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal);
  if (ms <= 0) return;
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    if (signal?.aborted) throw abortedError(error);
    throw error;
  }
}

/** Throws an `aborted` {@link LlmProviderError} when `signal` has already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal.reason);
}

function abortedError(cause: unknown): LlmProviderError {
  return new LlmProviderError('aborted', 'the completion was aborted by the caller', { cause });
}
