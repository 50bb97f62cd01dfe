export interface WaitForOptions {
  readonly timeoutMs: number;
  /** Pause between checks (default 20 ms). */
  readonly intervalMs?: number;
  /** Describes what was awaited, for the timeout error (a function is evaluated at timeout). */
  readonly what?: string | (() => string);
}

/**
 * Resolves as soon as `predicate` holds; rejects once `timeoutMs` passed without it holding.
 * A deadline for a condition, never a fixed sleep used as an assertion.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  options: WaitForOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() >= deadline) {
      const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'condition');
      throw new Error(`waitFor: ${what} did not hold within ${options.timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
