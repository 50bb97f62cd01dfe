import { Inject, Injectable } from '@nestjs/common';
import {
  TOKEN_BEARER_ACTOR,
  Topics,
  type AuthorizeTokenCommand,
  type AuthorizeTokenResult,
  type InspectTokenCommand,
  type InspectTokenResult,
  type ResolveInterruptCommand,
  type ResolveInterruptResult,
  isTerminalRunStatus,
} from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from '../commands/command.sender';
import { ApiError } from '../common/api.error';
import {
  ConversationReadRepository,
  type ConversationTurnView,
} from '../conversations/conversation-read.repository';
import { waitForRun } from '../runs/run-change.waiter';
import {
  TokenLinkReadRepository,
  type InterruptAnswer,
  type LinkConversation,
} from './token-link-read.repository';
import { tokenRoutingKey, unverifiedClaims } from './token-routing-key.parser';

const READ_YOUR_WRITES_MS = 5_000;

/** Tenant used when the run's `run.started` is not in the store; the interrupt service then finds nothing. */
const UNKNOWN_TENANT = 'default';

/** One page of the transcript a signed link shows (`GET /v1/interrupts/{token}/conversation`). */
export interface LinkTranscript extends LinkConversation {
  readonly turns: readonly ConversationTurnView[];
  /** Pass as `after` for the next page; absent on the last page. */
  readonly nextCursor?: number;
}

/**
 * Where the interrupt a signed link names stands (`GET /v1/interrupts/{token}/outcome`):
 * `pending` — it waits and the link works; `answered` — it was answered (through this link or any
 * other way), so the link is used up; `run-ended` — its run completed, failed or was cancelled
 * before an answer. A token that is expired, forged or malformed gets the inspect route's refusal.
 */
export interface LinkOutcome {
  readonly state: 'pending' | 'answered' | 'run-ended';
  readonly runId: string;
  readonly nodeId?: string;
  readonly interruptId?: string;
  readonly expiresAt?: string;
  readonly intent?: string;
  /** The run's status in its snapshot (`waiting-approval`, `running`, `completed`, `cancelled`, …). */
  readonly runStatus?: string;
  readonly answer?: InterruptAnswer;
}

/**
 * The caller of a token request: nobody authenticated, the token is the authority. The token
 * service verifies it and then acts for the run's owner.
 */
const TOKEN_BEARER: Caller = { keyId: 'signed-token', ...TOKEN_BEARER_ACTOR, scopes: new Set() };

/**
 * Sends `token.inspect` / `token.authorize` to the token service, keyed by the run the token names
 * (read unverified, for routing only); a token the token service authorized to resolve is answered
 * by the interrupt service like any resolve. Every verdict — 400, 403, 404, 409, 410, 422 — is the
 * token service's or the interrupt service's, mapped by the gateway's one error table.
 */
@Injectable()
export class InterruptTokenHandler {
  constructor(
    private readonly commands: CommandSender,
    private readonly links: TokenLinkReadRepository,
    private readonly conversations: ConversationReadRepository,
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
   * Resolves through the token: the token service authorizes it (`token.authorize`: MAC, key,
   * expiry, intent, the interrupt's state) and names the run's owner; then the interrupt service
   * decides `interrupt.resolve` (`via: token`, principal `token:<kid>`), first resolve wins, as for
   * an API answer. Two requests in a row, not one nested in another (ADR 0007, revised). Once
   * resolved, waits (bounded) until the run snapshot no longer shows that interrupt pending, so a
   * read right after the answer sees the run moving on. An `authorized` on a `credential`
   * interrupt is re-checked on the way out, as on every route (the command sender, ADR 0044).
   *
   * @throws DomainError with the deciding service's code (a cancelled interrupt is the token
   *   surface's `interrupt_already_resolved`); ApiError `validation_error` for an undecodable token.
   */
  async resolve(token: string, resumeValue: unknown): Promise<ResolveInterruptResult> {
    const runId = tokenRoutingKey(token);
    const authorize: AuthorizeTokenCommand = this.commands.envelope(
      'token.authorize',
      runId,
      { token },
      TOKEN_BEARER,
    );
    const granted = await this.commands.send<AuthorizeTokenResult>(Topics.tokenCommands, runId, authorize);
    const principal = `token:${granted.kid}`;
    const command: ResolveInterruptCommand = this.commands.envelope(
      'interrupt.resolve',
      granted.runId,
      {
        runId: granted.runId,
        nodeId: granted.nodeId,
        ...(resumeValue !== undefined ? { resumeValue } : {}),
        via: 'token',
        interruptId: granted.interruptId,
      },
      { keyId: principal, tenant: granted.tenant ?? UNKNOWN_TENANT, principal, scopes: new Set() },
    );
    let result: ResolveInterruptResult;
    try {
      result = await this.commands.send<ResolveInterruptResult>(
        Topics.interruptCommands,
        granted.runId,
        command,
      );
    } catch (error) {
      // An interrupt service of the release before RFC 0213's 409 (a rolling upgrade) still says
      // `interrupt_cancelled`; on the token surface an invalidated token is 409 all the same.
      if (error instanceof DomainError && error.code === 'interrupt_cancelled')
        throw invalidatedToken(granted.interruptId);
      throw error;
    }
    if (result.status === 'resolved') {
      await waitForRun(
        { feed: this.feed, runId: result.runId, timeoutMs: READ_YOUR_WRITES_MS, fallbackMs: 100 },
        async () =>
          (await this.links.pendingInterruptId(result.runId)) !== result.interruptId ? true : undefined,
      );
    }
    return result;
  }

  /**
   * One page of the transcript of the conversation the token's interrupt holds, read-only. The
   * token service verifies the token first (the same verdicts as inspect); the read is bound to
   * the run and the conversation that interrupt names.
   *
   * @throws DomainError with the token service's code; ApiError `not_found` when the interrupt holds no conversation.
   */
  async transcript(token: string, after: number, limit: number): Promise<LinkTranscript> {
    const interrupt = await this.inspect(token);
    const conversationId = (interrupt.data as { conversationId?: unknown } | null | undefined)
      ?.conversationId;
    const conversation =
      typeof conversationId === 'string'
        ? await this.links.conversation(interrupt.runId, conversationId)
        : undefined;
    if (!conversation) throw ApiError.notFound('The interrupt this link names holds no conversation.');
    const read = await this.conversations.turnsAfter(conversation.conversationId, after, limit + 1);
    const turns = read.slice(0, limit);
    const last = turns.at(-1);
    return { ...conversation, turns, ...(read.length > limit && last ? { nextCursor: last.turnIndex } : {}) };
  }

  /**
   * Where the token's interrupt stands. A pending one is what inspect says; once the token service
   * refuses the token as used up (`interrupt_already_resolved`, a verdict it gives only after the
   * MAC, the expiry and the stored interrupt checked out, so the payload is authentic), the run's
   * log says whether the interrupt was answered or its run ended first.
   *
   * @throws DomainError with the token service's code for any other refusal.
   */
  async outcome(token: string): Promise<LinkOutcome> {
    try {
      const interrupt = await this.inspect(token);
      const runStatus = await this.links.runStatus(interrupt.runId);
      return {
        state: 'pending',
        runId: interrupt.runId,
        nodeId: interrupt.nodeId,
        interruptId: interrupt.interruptId,
        expiresAt: interrupt.expiresAt,
        intent: interrupt.intent,
        ...(runStatus !== undefined ? { runStatus } : {}),
      };
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'interrupt_already_resolved') throw error;
    }
    const claims = unverifiedClaims(token);
    const [runStatus, answer] = await Promise.all([
      this.links.runStatus(claims.runId),
      claims.interruptId !== undefined ? this.links.answer(claims.runId, claims.interruptId) : undefined,
    ]);
    // Used up while the run has not ended: the interrupt was answered, though its event may not be
    // projected yet (the token service can see it before the projector does).
    const ended = isTerminalRunStatus(runStatus);
    return {
      state: answer || !ended ? 'answered' : 'run-ended',
      ...claims,
      ...(runStatus !== undefined ? { runStatus } : {}),
      ...(answer ? { answer } : {}),
    };
  }
}

/** The token service's refusal of a spent token (token-domain's `InvalidatedToken`), said by the gateway. */
function invalidatedToken(interruptId: string): DomainError {
  return new DomainError(
    'interrupt_already_resolved',
    `Interrupt ${interruptId} is already resolved or its run has ended; the token is no longer valid.`,
    { interruptId },
  );
}
