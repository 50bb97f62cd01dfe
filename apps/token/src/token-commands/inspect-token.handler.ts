import { Injectable } from '@nestjs/common';
import type { InspectTokenCommand, InspectTokenResult } from '@openwop/contracts';
import { TokenVerificationService } from './token-verification.service';

/** `token.inspect`: what a valid token names, without resolving it (`GET /v1/interrupts/{token}`). */
@Injectable()
export class InspectTokenHandler {
  constructor(private readonly verification: TokenVerificationService) {}

  /** @throws DomainError for a token that may not inspect (see {@link TokenVerificationService.authorize}). */
  async handle(command: InspectTokenCommand): Promise<InspectTokenResult> {
    const { payload, state } = await this.verification.authorize(command.data.token, 'inspect');
    const { tokens } = state;
    return {
      runId: tokens.runId,
      nodeId: tokens.nodeId,
      interruptId: tokens.interruptId,
      kind: tokens.kind,
      key: tokens.key,
      data: tokens.data,
      ...(tokens.resumeSchema !== undefined ? { resumeSchema: tokens.resumeSchema } : {}),
      ...(tokens.timeoutMs !== undefined ? { timeoutMs: tokens.timeoutMs } : {}),
      requestedAt: tokens.requestedAt,
      expiresAt: payload.expiresAt,
      intent: payload.intent,
    };
  }
}
