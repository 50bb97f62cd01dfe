import { Injectable } from '@nestjs/common';
import type { AuthorizeTokenCommand, AuthorizeTokenResult } from '@openwop/contracts';
import { TokenVerificationService } from './token-verification.service';

/**
 * `token.authorize`: whether a token may resolve the interrupt it names, and as whom (the run's
 * owner, principal `token:<kid>`). The gateway then sends `interrupt.resolve` itself, so a token
 * resolve is two requests in a row rather than one nested in the other, and the interrupt service's
 * first-resolve-wins decides as for any other answer.
 */
@Injectable()
export class AuthorizeTokenHandler {
  constructor(private readonly verification: TokenVerificationService) {}

  /** @throws DomainError for a token that may not resolve (see {@link TokenVerificationService.authorize}). */
  async handle(command: AuthorizeTokenCommand): Promise<AuthorizeTokenResult> {
    const { payload, state } = await this.verification.authorize(command.data.token, 'resolve');
    return {
      runId: payload.runId,
      nodeId: payload.nodeId,
      interruptId: payload.interruptId,
      ...(state.tenant !== undefined ? { tenant: state.tenant } : {}),
      kid: payload.kid,
      expiresAt: payload.expiresAt,
    };
  }
}
