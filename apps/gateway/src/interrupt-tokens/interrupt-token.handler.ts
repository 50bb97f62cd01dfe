import { Inject, Injectable } from '@nestjs/common';
import {
  TOKEN_BEARER_ACTOR,
  Topics,
  type InspectTokenCommand,
  type InspectTokenResult,
  type ResolveByTokenCommand,
  type ResolveInterruptResult,
} from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from '../commands/command.sender';
import { waitForRun } from '../runs/run-change.waiter';
import { ResolutionTokenReadRepository } from './resolution-token-read.repository';
import { tokenRoutingKey } from './token-routing-key.parser';

const READ_YOUR_WRITES_MS = 5_000;

/**
 * The caller of a token request: nobody authenticated, the token is the authority. The token
 * service verifies it and then acts for the run's owner.
 */
const TOKEN_BEARER: Caller = { keyId: 'signed-token', ...TOKEN_BEARER_ACTOR, scopes: new Set() };

/**
 * Sends `token.inspect` / `token.resolve` to the token service, keyed by the run the token names
 * (read unverified, for routing only). Every verdict — 400, 403, 404, 409, 410, 422 — is the token
 * service's or the interrupt service's, mapped by the gateway's one error table.
 */
@Injectable()
export class InterruptTokenHandler {
  constructor(
    private readonly commands: CommandSender,
    private readonly tokens: ResolutionTokenReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  /** @throws DomainError with the token service's code; ApiError `validation_error` for an undecodable token. */
  inspect(token: string): Promise<InspectTokenResult> {
    const runId = tokenRoutingKey(token);
    const command: InspectTokenCommand = this.commands.envelope(
      'token.inspect',
      runId,
      { token },
      TOKEN_BEARER,
    );
    return this.commands.send<InspectTokenResult>(Topics.tokenCommands, runId, command);
  }

  /**
   * Resolves through the token; once resolved, waits (bounded) until the run snapshot no longer
   * shows that interrupt pending, so a read right after the answer sees the run moving on.
   *
   * @throws DomainError with the deciding service's code; ApiError `validation_error` for an undecodable token.
   */
  async resolve(token: string, resumeValue: unknown): Promise<ResolveInterruptResult> {
    const runId = tokenRoutingKey(token);
    const command: ResolveByTokenCommand = this.commands.envelope(
      'token.resolve',
      runId,
      { token, resumeValue },
      TOKEN_BEARER,
    );
    const result = await this.commands.send<ResolveInterruptResult>(Topics.tokenCommands, runId, command);
    if (result.status === 'resolved') {
      await waitForRun(
        { feed: this.feed, runId: result.runId, timeoutMs: READ_YOUR_WRITES_MS, fallbackMs: 100 },
        async () =>
          (await this.tokens.pendingInterruptId(result.runId)) !== result.interruptId ? true : undefined,
      );
    }
    return result;
  }
}
