import { Injectable } from '@nestjs/common';
import type { InspectTokenCommand, InspectTokenResult } from '@openwop/contracts';
import { TokenVerificationService } from './token-verification.service';

/** `token.inspect`: what a valid token names, without resolving it (`GET /v1/interrupts/{token}`). */
@Injectable()
export class InspectTokenHandler {
  constructor(private readonly verification: TokenVerificationService) {}

  /** @throws DomainError for a token that may not inspect (see {@link TokenVerificationService.authorize}). */
  async handle(command: InspectTokenCommand): Promise<InspectTokenResult> {
    const { payload, stored } = await this.verification.authorize(command.data.token, 'inspect');
    return {
      runId: stored.runId,
      nodeId: stored.nodeId,
      interruptId: stored.interruptId,
      kind: stored.kind,
      key: stored.key,
      data: stored.data,
      ...(stored.resumeSchema !== undefined ? { resumeSchema: stored.resumeSchema } : {}),
      ...(stored.timeoutMs !== undefined ? { timeoutMs: stored.timeoutMs } : {}),
      requestedAt: stored.requestedAt,
      expiresAt: payload.expiresAt,
      intent: payload.intent,
    };
  }
}
