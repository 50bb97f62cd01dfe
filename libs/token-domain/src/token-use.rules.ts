import type { TokenVerification } from './resolution-token';
import { ExpiredToken, InspectOnlyToken, InvalidatedToken, InvalidToken, UnknownToken } from './token.errors';
import type { VerifiedTokenPayload } from './token-payload';

/** What the bearer asks to do: inspect (`GET /v1/interrupts/{token}`) or resolve (`POST`). */
export type TokenOperation = 'inspect' | 'resolve';

/** The interrupt a token names, as its run's events leave it. */
export interface StoredTokenState {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  /** Set once the interrupt was resolved or its run ended. */
  readonly invalidated: boolean;
}

/**
 * Decides whether a verified token may perform `operation`, in this order: malformed, unknown
 * `alg`, unknown key or bad MAC ({@link InvalidToken}: 401 under major 2, 404 on the v1 surface;
 * one answer for every token that does not verify); expired (410); no stored interrupt for it
 * (404); an inspect-only token asked to resolve (403); invalidated (409). Returns the payload when
 * the use is allowed. Both schemes (`ow2.` and v1) follow the same order.
 *
 * @throws {@link InvalidToken} | {@link UnknownToken} | {@link ExpiredToken} |
 *   {@link InspectOnlyToken} | {@link InvalidatedToken}
 */
export function authorizeTokenUse(
  verification: TokenVerification,
  stored: StoredTokenState | undefined,
  operation: TokenOperation,
): VerifiedTokenPayload {
  if (!verification.ok) {
    switch (verification.reason) {
      case 'malformed':
      case 'unknown_alg':
      case 'unknown_key':
      case 'bad_mac':
        throw new InvalidToken();
      case 'expired':
        throw new ExpiredToken(verification.payload.expiresAt);
    }
  }
  const { payload } = verification;
  if (
    !stored ||
    stored.interruptId !== payload.interruptId ||
    stored.runId !== payload.runId ||
    stored.nodeId !== payload.nodeId
  ) {
    throw new UnknownToken();
  }
  if (operation === 'resolve' && payload.intent !== 'resolve') throw new InspectOnlyToken();
  if (stored.invalidated) throw new InvalidatedToken(payload.interruptId);
  return payload;
}
