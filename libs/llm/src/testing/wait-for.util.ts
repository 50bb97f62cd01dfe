/**
 * Resolves as soon as `predicate` holds; rejects once `timeoutMs` passed without it holding.
 * A deadline for a condition, never a fixed sleep used as an assertion.
 *
 * @internal test support
 */
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() >= deadline) throw new Error(`waitFor: ${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
