import { OW2_TOKEN_PREFIX } from '@openwop/contracts';
import { ApiError } from '../common/api.error';

/** Longest token the gateway forwards (the token service's bound is the same). */
export const MAX_TOKEN_LENGTH = 4096;

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * The bus key (the run id) of a token command, read from the token's payload WITHOUT verifying it:
 * the gateway holds no secret, and every decision is the token service's. Reading the run id only
 * routes the command to the partition that owns the run.
 *
 * @throws {@link ApiError} `interrupt_token_invalid` when the token does not even decode (as the
 *   token service answers any token that does not verify: 401 under major 2, 404 on `/v1/`); its
 *   message never echoes the token.
 */
export function tokenRoutingKey(token: string): string {
  return unverifiedClaims(token).runId;
}

/** What a token's payload names, read WITHOUT verifying it (see {@link unverifiedClaims}). */
export interface UnverifiedTokenClaims {
  readonly runId: string;
  readonly nodeId?: string;
  readonly interruptId?: string;
  readonly expiresAt?: string;
  readonly intent?: string;
}

/**
 * The claims of a token's payload, NOT verified: trust them only once the token service answered
 * a verdict it gives after checking the MAC (an inspect that succeeded, or its
 * `interrupt_already_resolved`, which comes after the MAC, expiry and stored-interrupt checks).
 * Either scheme: a v1 token `<payload>.<mac>`, or `ow2.<alg>.<kid>.<payload>.<mac>` (identity.md
 * §4; the `kid` may hold dots, so the payload is the last segment but one).
 *
 * @throws {@link ApiError} `interrupt_token_invalid` when the token does not decode.
 */
export function unverifiedClaims(token: string): UnverifiedTokenClaims {
  if (token.length > MAX_TOKEN_LENGTH) throw malformed();
  const ow2 = token.startsWith(OW2_TOKEN_PREFIX);
  const parts = (ow2 ? token.slice(OW2_TOKEN_PREFIX.length) : token).split('.');
  const shaped = ow2 ? parts.length >= 4 : parts.length === 2;
  if (!shaped || !parts.every((p) => SEGMENT.test(p))) throw malformed();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts.at(-2)!, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  const claims = (payload ?? {}) as Record<string, unknown>;
  const runId = claims.runId;
  if (typeof runId !== 'string' || runId === '') throw malformed();
  const text = (name: string): Record<string, string> => {
    const value = claims[name];
    return typeof value === 'string' ? { [name]: value } : {};
  };
  return { runId, ...text('nodeId'), ...text('interruptId'), ...text('expiresAt'), ...text('intent') };
}

/** A token that does not decode is, to the caller, a token that does not verify: the token service's words. */
function malformed(): ApiError {
  return new ApiError('interrupt_token_invalid', 'This token is not valid.');
}

/** What may be logged of a token: its first 8 characters. */
export function redactToken(token: string): string {
  return `${token.slice(0, 8)}…`;
}
