import { Injectable } from '@nestjs/common';
import type { MintTokensCommand, MintTokensResult } from '@openwop/contracts';
import { TokenStateRepository } from '../common/token-state.repository';

/**
 * `token.mint`: the tokens of a pending interrupt, minted on demand for the run snapshot from the
 * interrupt's `interrupt.requested` event with the active key. Deterministic, so every read gets the
 * same tokens, the ones the run-event consumer of the previous release stored. None for an
 * interrupt never requested, answered, or whose run ended; expired ones are returned (the snapshot
 * says they expired and hands them to nobody).
 */
@Injectable()
export class MintTokensHandler {
  constructor(private readonly states: TokenStateRepository) {}

  async handle(command: MintTokensCommand): Promise<MintTokensResult> {
    const state = await this.states.find(command.data.runId, command.data.interruptId);
    if (!state || state.invalidatedAt !== undefined) return {};
    const { resolveToken, inspectToken, expiresAt } = state.tokens;
    return { tokens: { resolveToken, inspectToken, expiresAt } };
  }
}
