import { Inject, Injectable } from '@nestjs/common';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { RunRow } from '../runs/run-read.repository';
import { ResolutionTokenReadRepository } from './resolution-token-read.repository';
import { pendingInterruptIdOf, tokenAuthorityOf, withInterruptTokens, type TokenReader } from './snapshot-tokens.decorator';

/**
 * The only place the gateway shows signed tokens: every read that presents a run's pending
 * interrupt goes through {@link present}, which applies {@link tokenAuthorityOf} (who may see the
 * resolving token) and the expiry rule of {@link withInterruptTokens}.
 */
@Injectable()
export class InterruptTokenPresenter {
  constructor(
    private readonly tokens: ResolutionTokenReadRepository,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
  ) {}

  /** The run's snapshot as `reader` may see it, its pending interrupt carrying the tokens it may hold. */
  async present(run: RunRow, reader: TokenReader): Promise<Record<string, unknown>> {
    const interruptId = pendingInterruptIdOf(run.snapshot);
    if (interruptId === undefined) return run.snapshot;
    return withInterruptTokens(run.snapshot, await this.tokens.findValid(interruptId), {
      authority: tokenAuthorityOf(reader, run.tenant),
      publicUrl: this.config.publicUrl,
      now: Date.now(),
    });
  }
}
