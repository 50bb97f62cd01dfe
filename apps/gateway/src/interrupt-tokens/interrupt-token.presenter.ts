import { Inject, Injectable } from '@nestjs/common';
import { Topics, type MintTokensCommand, type MintTokensResult } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { BrokerUnreachableError } from '@openwop/platform-bus';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from '../commands/command.sender';
import type { RunRow } from '../runs/run-read.repository';
import { pendingInterruptIdOf, tokenAuthorityOf, withInterruptTokens } from './snapshot-tokens.decorator';

/** How long a snapshot read waits for the token service to mint; past it, the snapshot shows no token. */
export const MINT_WAIT_MS = 1_000;

/**
 * The only place the gateway shows signed tokens: every read that presents a run's pending
 * interrupt goes through {@link present}, which applies {@link tokenAuthorityOf} (who may see the
 * resolving token) and the expiry rule of {@link withInterruptTokens}. The gateway holds no secret:
 * it asks the token service to mint (`token.mint`), which does so from the interrupt's
 * `interrupt.requested` event, deterministically, so every read gets the same tokens (ADR 0007).
 */
@Injectable()
export class InterruptTokenPresenter {
  constructor(
    private readonly commands: CommandSender,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
  ) {}

  /** The run's snapshot as `reader` may see it, its pending interrupt carrying the tokens it may hold. */
  async present(run: RunRow, reader: Caller): Promise<Record<string, unknown>> {
    const interruptId = pendingInterruptIdOf(run.snapshot);
    if (interruptId === undefined) return run.snapshot;
    return withInterruptTokens(run.snapshot, await this.mint(run.runId, interruptId, reader), {
      authority: tokenAuthorityOf(reader, run.tenant),
      publicUrl: this.config.publicUrl,
      now: Date.now(),
    });
  }

  /**
   * The interrupt's tokens, or none: when it is answered or its run ended (the token service's
   * state can be a moment ahead of the snapshot), or when the token service does not answer within
   * {@link MINT_WAIT_MS}, refuses (a token service of an older release knows no `token.mint`), or
   * the broker is unreachable. A token is a convenience of the snapshot: the snapshot is still
   * served, and the run is still answered through the API.
   */
  private async mint(
    runId: string,
    interruptId: string,
    reader: Caller,
  ): Promise<MintTokensResult['tokens']> {
    const command: MintTokensCommand = this.commands.envelope(
      'token.mint',
      runId,
      { runId, interruptId },
      reader,
    );
    try {
      const result = await this.commands.send<MintTokensResult>(
        Topics.tokenCommands,
        runId,
        command,
        undefined,
        MINT_WAIT_MS,
      );
      return result.tokens;
    } catch (error) {
      // A refusal, or `unavailable` (an ApiError, a DomainError too) when no answer came in time.
      if (error instanceof DomainError || error instanceof BrokerUnreachableError) return undefined;
      throw error;
    }
  }
}
