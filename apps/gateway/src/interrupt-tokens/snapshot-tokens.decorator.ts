import type { InterruptTokens } from './resolution-token-read.repository';

/**
 * The run snapshot with the signed-token fields on its pending interrupt: `interruptToken` (the
 * resolve token), `callbackUrl` (`{publicUrl}/v1/interrupts/{token}`), `inspectToken` and
 * `tokenExpiresAt` (the README's conformance contract for external-event runs; RFC 0093).
 */
export function withInterruptTokens(
  snapshot: Record<string, unknown>,
  tokens: InterruptTokens | undefined,
  publicUrl: string,
): Record<string, unknown> {
  const interrupt = snapshot.interrupt;
  if (!tokens || typeof interrupt !== 'object' || interrupt === null) return snapshot;
  return {
    ...snapshot,
    interrupt: {
      ...interrupt,
      interruptToken: tokens.resolveToken,
      callbackUrl: `${publicUrl.replace(/\/+$/, '')}/v1/interrupts/${tokens.resolveToken}`,
      inspectToken: tokens.inspectToken,
      tokenExpiresAt: tokens.expiresAt,
    },
  };
}

/** The pending interrupt id of a snapshot, if it shows one. */
export function pendingInterruptIdOf(snapshot: Record<string, unknown>): string | undefined {
  const id = (snapshot.interrupt as { interruptId?: unknown } | undefined)?.interruptId;
  return typeof id === 'string' ? id : undefined;
}
