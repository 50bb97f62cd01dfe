import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@openwop/kernel';
import { countTokenVerification, seedCounters } from '@openwop/observability';
import {
  authorizeTokenUse,
  InvalidatedToken,
  verifyToken,
  type InterruptTokenState,
  type KeyRing,
  type TokenOperation,
  type VerifiedTokenPayload,
} from '@openwop/token-domain';
import { TokenStateRepository } from '../common/token-state.repository';
import { CLOCK, KEY_RING, type Clock } from '../token.di-tokens';

/** A token that may perform the asked operation, with the interrupt it names. */
export interface AuthorizedToken {
  readonly payload: VerifiedTokenPayload;
  readonly state: InterruptTokenState;
}

/**
 * Verifies a presented token against the key ring and its interrupt's state as the run's events
 * leave it, and decides whether it may inspect or resolve (the domain's RFC 0093 rules).
 */
@Injectable()
export class TokenVerificationService {
  constructor(
    @Inject(KEY_RING) private readonly ring: KeyRing,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly states: TokenStateRepository,
  ) {
    seedCounters({ tokenOutcomes: ['ok'] });
  }

  /**
   * @throws DomainError `interrupt_token_invalid` | `interrupt_not_found` | `interrupt_expired` | `forbidden`
   *   | `interrupt_already_resolved` (see `authorizeTokenUse`).
   */
  async authorize(token: string, operation: TokenOperation): Promise<AuthorizedToken> {
    try {
      const authorized = await this.decide(token, operation);
      countTokenVerification('ok');
      return authorized;
    } catch (error) {
      countTokenVerification(error instanceof DomainError ? error.code : 'error');
      throw error;
    }
  }

  /**
   * After `authorize(token, 'resolve')` threw `error`: the token, when the refusal was only that it
   * is spent (a genuine, unexpired resolve token whose interrupt was resolved, cancelled or ended).
   */
  async spent(token: string, error: unknown): Promise<AuthorizedToken | undefined> {
    if (!(error instanceof InvalidatedToken)) return undefined;
    const verification = verifyToken(token, this.ring, this.clock.now());
    if (!verification.ok || verification.payload.intent !== 'resolve') return undefined;
    const { runId, interruptId } = verification.payload;
    const state = await this.states.find(runId, interruptId);
    return state?.invalidatedAt !== undefined ? { payload: verification.payload, state } : undefined;
  }

  private async decide(token: string, operation: TokenOperation): Promise<AuthorizedToken> {
    const verification = verifyToken(token, this.ring, this.clock.now());
    const state = verification.ok
      ? await this.states.find(verification.payload.runId, verification.payload.interruptId)
      : undefined;
    const payload = authorizeTokenUse(
      verification,
      state && {
        runId: state.tokens.runId,
        nodeId: state.tokens.nodeId,
        interruptId: state.tokens.interruptId,
        invalidated: state.invalidatedAt !== undefined,
      },
      operation,
    );
    return { payload, state: state! };
  }
}
