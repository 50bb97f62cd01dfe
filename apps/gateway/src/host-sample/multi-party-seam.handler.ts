import { Inject, Injectable } from '@nestjs/common';
import {
  MAX_ID_LENGTH,
  Topics,
  workflowLimitProblems,
  type RegisterWorkflowCommand,
  isTerminalRunStatus,
} from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from '../commands/command.sender';
import { ApiError, type FieldError } from '../common/api.error';
import { CreateRunHandler } from '../create-run/create-run.handler';
import { ResolveInterruptHandler } from '../resolve-interrupt/resolve-interrupt.handler';
import { READ_YOUR_WRITES_MS, RunNotices, waitForRun } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';
import {
  COUNCIL_NODE_ID,
  councilRunId,
  councilWorkflow,
  requestPathOf,
  rosterOf,
} from './multi-party-seam.council';

/** `200` of `open`. */
export interface CouncilOpened {
  readonly conversationId: string;
  readonly accepted: true;
  /** The run holding the conversation (its transcript: `GET /v1/runs/{runId}/conversations`). */
  readonly runId: string;
}

/** `200` of `exchange`. */
export interface TurnAccepted {
  readonly accepted: true;
  readonly conversationId: string;
  readonly runId: string;
  readonly turnIndex?: number;
}

/**
 * The multi-party conversation seam (host-sample-test-seams.md, RFC 0101 §Conformance). It decides
 * nothing itself: `open` registers the caller's roster as a one-gate workflow (`workflow.register`,
 * whose refusal is the host's roster cap) and starts a run of it in the caller's tenant; `exchange`
 * sends the turn to that run's conversation as `interrupt.resolve` (`{operation: 'exchange'}`), so
 * the interrupt service's conversation aggregate applies the roster and attribution rules it applies
 * to every conversation. The seam's `conversationId` names the run through {@link councilRunId}.
 */
@Injectable()
export class MultiPartySeamHandler {
  constructor(
    private readonly commands: CommandSender,
    private readonly createRun: CreateRunHandler,
    private readonly resolve: ResolveInterruptHandler,
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  /**
   * Opens the council, or finds it opened: answers once the conversation waits for turns.
   * @throws {@link ApiError} `validation_error` for a malformed body, a roster over the request's
   * `maxParticipants`, or an id already open with another roster; the engine's `validation_error`
   * (roster over the host's cap: `details.reason: conversation_roster_exceeded`); `unavailable`.
   */
  async open(body: unknown, caller: Caller): Promise<CouncilOpened> {
    const { conversationId, participants, maxParticipants } = parseOpen(body);
    if (maxParticipants !== undefined && participants.length > maxParticipants) {
      throw ApiError.validation(
        `The roster has ${participants.length} participants; the request allows at most ${maxParticipants}.`,
        [
          {
            path: '/participants',
            message: `has ${participants.length} members; at most ${maxParticipants} are allowed`,
          },
        ],
        { reason: 'conversation_roster_exceeded', participants: participants.length, maxParticipants },
      );
    }
    const workflow = councilWorkflow(rosterOf(participants));
    await this.register(workflow.definition, caller);
    const runId = councilRunId(caller.tenant, conversationId);
    const notices = new RunNotices(this.feed, runId);
    try {
      await this.start(runId, workflow.id, conversationId, caller);
      const ready = await waitForRun(
        { feed: this.feed, runId, timeoutMs: READ_YOUR_WRITES_MS, fallbackMs: 100, notices },
        async () => {
          const row = await this.runs.findVisible(runId, caller.tenant);
          const pending = (row?.snapshot as { interrupt?: { nodeId?: string } } | undefined)?.interrupt;
          return row && (pending?.nodeId === COUNCIL_NODE_ID || isTerminalRunStatus(row.status))
            ? row
            : undefined;
        },
      );
      if (!ready) {
        throw new ApiError(
          'unavailable',
          `Conversation ${conversationId} did not open within ${READ_YOUR_WRITES_MS} ms; opening it again is safe.`,
          { conversationId, runId },
          1,
        );
      }
    } finally {
      notices.close();
    }
    return { conversationId, accepted: true, runId };
  }

  /**
   * Sends one turn to an open council.
   * @throws {@link ApiError} `validation_error` for a malformed body; `not_found` when the caller's
   * tenant opened no conversation of that id; the interrupt service's refusal otherwise
   * (`validation_error` for a missing `speakerId` or a non-member, RFC 0101 §Spec 2/3).
   */
  async exchange(body: unknown, caller: Caller): Promise<TurnAccepted> {
    const { conversationId, turn } = parseExchange(body);
    const runId = councilRunId(caller.tenant, conversationId);
    if (!(await this.runs.findVisible(runId, caller.tenant))) {
      throw ApiError.notFound(`No conversation ${conversationId} was opened for this tenant.`);
    }
    const result = await this.resolve.handle(
      runId,
      COUNCIL_NODE_ID,
      { operation: 'exchange', turn },
      'api',
      caller,
    );
    return {
      accepted: true,
      conversationId,
      runId,
      ...(result.turnIndex !== undefined ? { turnIndex: result.turnIndex } : {}),
    };
  }

  /** `workflow.register` of the council's definition (idempotent: same roster, same definition). */
  private async register(definition: Record<string, unknown>, caller: Caller): Promise<void> {
    const bounds = workflowLimitProblems(definition);
    if (bounds.length > 0)
      throw ApiError.validation('The roster is outside the host limits.', bounds.map(toRequestPath));
    const key = String(definition.id);
    const command: RegisterWorkflowCommand = this.commands.envelope(
      'workflow.register',
      key,
      { definition },
      caller,
    );
    try {
      await this.commands.send<{ workflowId: string }>(Topics.engineCommands, key, command);
    } catch (error) {
      throw error instanceof DomainError && error.code === 'validation_error' ? rebased(error) : error;
    }
  }

  /** Starts the council's run; a run already there is this conversation when it runs the same roster. */
  private async start(
    runId: string,
    workflowId: string,
    conversationId: string,
    caller: Caller,
  ): Promise<void> {
    try {
      await this.createRun.handle({ workflowId }, caller, runId);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'run_already_exists') throw error;
      const row = await this.runs.findVisible(runId, caller.tenant);
      if (!row) throw error;
      if ((row.snapshot as { workflowId?: string }).workflowId !== workflowId) {
        throw ApiError.validation(
          `Conversation ${conversationId} is already open with another roster.`,
          [{ path: '/participants', message: 'differs from the roster the conversation was opened with' }],
          { reason: 'conversation_already_open', conversationId },
        );
      }
    }
  }
}

function toRequestPath(e: FieldError): FieldError {
  return { path: requestPathOf(e.path), message: e.message };
}

/** The engine's refusal of the council definition, its field paths pointing into the request. */
function rebased(error: DomainError): DomainError {
  const details = error.details ?? {};
  const errors = Array.isArray(details.errors)
    ? (details.errors as FieldError[]).map(toRequestPath)
    : undefined;
  const field = typeof details.field === 'string' ? requestPathOf(details.field) : undefined;
  const { nodeId: _node, offendingTypeId: _type, ...rest } = details;
  return new ApiError('validation_error', error.message.replace(/node council /, 'the roster '), {
    ...rest,
    ...(field !== undefined ? { field } : {}),
    ...(errors ? { errors } : {}),
  });
}

function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.validation('The body must be a JSON object.', [
      { path: '', message: 'must be an object' },
    ]);
  }
  return body as Record<string, unknown>;
}

function conversationIdOf(value: Record<string, unknown>, errors: FieldError[]): string {
  const { conversationId } = value;
  if (typeof conversationId !== 'string' || conversationId === '' || conversationId.length > MAX_ID_LENGTH) {
    errors.push({ path: '/conversationId', message: `must be a string of 1..${MAX_ID_LENGTH} characters` });
    return '';
  }
  return conversationId;
}

function parseOpen(body: unknown): {
  conversationId: string;
  participants: unknown[];
  maxParticipants?: number;
} {
  const value = requireObject(body);
  const errors: FieldError[] = [];
  const conversationId = conversationIdOf(value, errors);
  if (!Array.isArray(value.participants))
    errors.push({ path: '/participants', message: 'must be an array of AgentRef ({agentId, name?})' });
  const { maxParticipants } = value;
  if (
    maxParticipants !== undefined &&
    (!Number.isInteger(maxParticipants) || (maxParticipants as number) < 1)
  ) {
    errors.push({ path: '/maxParticipants', message: 'must be a positive integer' });
  }
  if (errors.length) throw ApiError.validation('Invalid multi-party open request.', errors);
  return {
    conversationId,
    participants: value.participants as unknown[],
    ...(maxParticipants !== undefined ? { maxParticipants: maxParticipants as number } : {}),
  };
}

function parseExchange(body: unknown): { conversationId: string; turn: Record<string, unknown> } {
  const value = requireObject(body);
  const errors: FieldError[] = [];
  const conversationId = conversationIdOf(value, errors);
  const { turn } = value;
  if (typeof turn !== 'object' || turn === null || Array.isArray(turn))
    errors.push({ path: '/turn', message: 'must be a ConversationTurn object' });
  if (errors.length) throw ApiError.validation('Invalid multi-party exchange request.', errors);
  return { conversationId, turn: turn as Record<string, unknown> };
}
