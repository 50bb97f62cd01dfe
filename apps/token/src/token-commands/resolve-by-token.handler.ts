import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  Headers,
  Topics,
  type CommandReply,
  type ResolveByTokenCommand,
  type ResolveInterruptCommand,
  type ResolveInterruptResult,
  versionedCommand,
} from '@openwop/contracts';
import { BUS, RequestTimeoutError, type Bus } from '@openwop/platform-bus';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import { InvalidatedToken } from '@openwop/token-domain';
import { CLOCK, type Clock } from '../token.di-tokens';
import { TokenVerificationService, type AuthorizedToken } from './token-verification.service';

/** Tenant used when the run's `run.started` was never seen; the interrupt service then finds nothing. */
const UNKNOWN_TENANT = 'default';

/**
 * `token.resolve`: verifies the token, then forwards `interrupt.resolve` to the interrupt service
 * as the run's owner tenant with principal `token:<kid>`, and relays its verdict. The interrupt
 * service decides (first resolve wins, per-kind validation, correlation), so a token resolve racing
 * an API resolve has one winner; its `interrupt.resolved` event spends the token. `interrupt_cancelled`
 * is answered as the token surface's `409 interrupt_already_resolved`.
 *
 * Served for gateways of the release before ADR 0007's revision during a rolling upgrade; this
 * release's gateway asks `token.authorize` and sends `interrupt.resolve` itself (no nested request).
 */
@Injectable()
export class ResolveByTokenHandler {
  constructor(
    private readonly verification: TokenVerificationService,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** @throws DomainError for a token that may not resolve (see {@link TokenVerificationService.authorize}). */
  async handle(command: ResolveByTokenCommand): Promise<CommandReply<ResolveInterruptResult>> {
    let authorized: AuthorizedToken;
    try {
      authorized = await this.verification.authorize(command.data.token, 'resolve');
    } catch (error) {
      const spent = await this.verification.spent(command.data.token, error);
      if (!spent) throw error;
      // A spent token may be this very command's doing: the instance that forwarded it died before
      // answering, and this is the redelivery. The interrupt service answers a replay-only request
      // from its dedupe table (same derived id) and refuses anything else, so a spent token never
      // decides anything; only this command's own first verdict is relayed.
      const first = await this.forward(command, spent, { replayOnly: true });
      if (first.ok && first.data.status === 'resolved') return first;
      throw error;
    }
    const reply = await this.forward(command, authorized);
    // The run was cancelled and its run.cancelled event is not in the store yet. On the token
    // surface an invalidated token is 409, not the run-scoped 422 (`interrupt.md` §Error responses).
    if (!reply.ok && reply.error.code === 'interrupt_cancelled')
      throw new InvalidatedToken(authorized.payload.interruptId);
    return reply;
  }

  /** Sends `interrupt.resolve` for the token's interrupt and returns the interrupt service's verdict. */
  private async forward(
    command: ResolveByTokenCommand,
    { payload, state }: AuthorizedToken,
    options: { readonly replayOnly?: boolean } = {},
  ): Promise<CommandReply<ResolveInterruptResult>> {
    const forward: ResolveInterruptCommand = {
      // Derived from the token command's id: a redelivered token command forwards the same
      // command, which the interrupt service answers from its dedupe table.
      id: derivedId(command.id),
      type: 'interrupt.resolve',
      occurredAt: new Date(this.clock.now()).toISOString(),
      correlationId: command.correlationId,
      causationId: command.id,
      actor: { tenant: state.tenant ?? UNKNOWN_TENANT, principal: `token:${payload.kid}` },
      data: {
        runId: payload.runId,
        nodeId: payload.nodeId,
        ...(command.data.resumeValue !== undefined ? { resumeValue: command.data.resumeValue } : {}),
        via: 'token',
        interruptId: payload.interruptId,
        ...(options.replayOnly ? { replayOnly: true } : {}),
      },
    };
    // Answer before the gateway gives up on us, so a slow interrupt service is a clear 503.
    const timeoutMs = Math.max(1_000, Math.floor(this.config.commandTimeoutMs * 0.8));
    try {
      return await this.bus.request<CommandReply<ResolveInterruptResult>>(
        Topics.interruptCommands,
        {
          key: payload.runId,
          value: versionedCommand(forward),
          headers: {
            [Headers.correlationId]: forward.correlationId,
            [Headers.messageId]: forward.id,
            [Headers.messageType]: forward.type,
          },
        },
        { timeoutMs },
      );
    } catch (e) {
      if (!(e instanceof RequestTimeoutError)) throw e;
      return {
        ok: false,
        error: {
          code: 'unavailable',
          message: `No verdict from the interrupt service within ${timeoutMs} ms; the resolve may still take effect.`,
        },
      };
    }
  }
}

/** A UUID-shaped id derived from another id. */
function derivedId(id: string): string {
  const h = createHash('sha256').update(`token.resolve:${id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
