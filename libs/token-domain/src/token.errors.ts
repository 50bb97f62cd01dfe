import { DomainError } from '@openwop/kernel';

// One class per refusal, each with the spec code it is answered with (`interrupt.md` §Error
// responses). None carries the token or anything derived from a key.

/**
 * A token that does not verify — one that does not even parse, a forged one (bad MAC), an `ow2.`
 * token whose `alg` is not advertised, one whose key is unknown or retired: `401
 * interrupt_token_invalid` under major 2 (identity.md §4, interrupt.md §Errors), the same answer and
 * words for each, so a caller learns nothing about why. The v1 surface answers it as
 * {@link UnknownToken}'s `404` (the interrupt-token-matrix scenario expects 404 for an unknown token
 * of any shape; the gateway maps it).
 */
export class InvalidToken extends DomainError {
  constructor() {
    super('interrupt_token_invalid', 'This token is not valid.');
  }
}

/**
 * An authentic token naming no interrupt we minted (never requested, or another node): `404`. On
 * the v1 surface also the answer to a token that does not verify ({@link InvalidToken}).
 */
export class UnknownToken extends DomainError {
  constructor() {
    super('interrupt_not_found', 'No interrupt is known for this token.');
  }
}

/** An authentic token past its `expiresAt`: `410 interrupt_expired` (RFC 0093 §B.1). */
export class ExpiredToken extends DomainError {
  constructor(expiresAt: string) {
    super('interrupt_expired', `The token expired at ${expiresAt}.`, { expiresAt });
  }
}

/** An inspect-only token presented to resolve: `403 forbidden` (RFC 0093 §B.4). */
export class InspectOnlyToken extends DomainError {
  constructor() {
    super('forbidden', 'This token may only inspect the interrupt, not resolve it.', { intent: 'inspect' });
  }
}

/** The interrupt was resolved, or its run completed, failed or was cancelled: `409` (RFC 0093 §B.2). */
export class InvalidatedToken extends DomainError {
  constructor(interruptId: string) {
    super(
      'interrupt_already_resolved',
      `Interrupt ${interruptId} is already resolved or its run has ended; the token is no longer valid.`,
      {
        interruptId,
      },
    );
  }
}
