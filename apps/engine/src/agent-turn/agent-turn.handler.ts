import { Inject, Injectable, Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ConsumerGroups,
  INTERRUPT_COMMAND_DATA,
  Topics,
  assertCommand,
  type AgentTurnCommand,
  type CommandReply,
  type ResolveInterruptCommand,
} from '@openwop/contracts';
import { agentPrompt, decideRun, runStateFromDocument, type RunRecord } from '@openwop/engine-domain';
import type { ChatMessage } from '@openwop/llm';
import { appendToOutbox, storedReply, type OutboxMessage, type OutboxRelay } from '@openwop/platform-db';
import { DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { commandContext } from '../common/command-context';
import { CLOCK, type Clock } from '../engine.di-tokens';
import { commitDecision, loadRunForUpdate } from '../common/run.store';
import { AgentProviders } from './agent-providers';
import { oweAgentTurns, type ClaimedTurn } from './agent-turn.store';
import { annotateConversation } from '@openwop/observability';

/** A run's engine state from its stored document; undefined when there is no such run. */
function stateOf(document: object | null | undefined): RunRecord | undefined {
  const state = runStateFromDocument(document ?? undefined);
  return state.status === 'none' ? undefined : state;
}

/** How long streamed tokens wait before they are appended together as `output.chunk` events. */
const FLUSH_MS = 40;

export interface AgentTurnResult {
  readonly conversationId: string;
  readonly speakerId: string;
  /**
   * `owed`: recorded for a worker (an `agent.turn` command); `submitted`: the reply went to the
   * interrupt service; `stale`: the conversation moved on or closed; `failed`: the provider failed
   * (the conversation is closed `agent-error`); `taken`: another claim of the turn settles it.
   */
  readonly outcome: 'owed' | 'submitted' | 'stale' | 'failed' | 'taken';
}

/**
 * An agent owes its conversation a reply (ADR 0037). The turn is a row (`engine_agent_turns`,
 * {@link oweAgentTurns}) written with the decision that calls for it; a worker
 * (`AgentTurnWorker`) claims it and runs {@link AgentTurnHandler.execute}: streams the provider's
 * answer into the run log as `output.chunk` events (a few tokens per transaction, through the
 * engine's decider: the engine stays the single writer), then, in one transaction, deletes the row, appends the last chunk
 * and submits the whole reply as the agent's turn to the interrupt service, which records it like
 * any other turn. A worker that dies mid-stream leaves its lease to run out and another claim
 * streams again (its chunks may repeat), but the row is settled once, and the turn's messageId
 * derives from the conversation and turn, so the turn never doubles.
 */
@Injectable()
export class AgentTurnHandler {
  private readonly logger = new Logger(AgentTurnHandler.name);

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    private readonly providers: AgentProviders,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** `agent.turn` over the bus (sent by an engine of the previous release): owes the turn to the workers. */
  async owe(manager: EntityManager, command: AgentTurnCommand): Promise<CommandReply<AgentTurnResult>> {
    await oweAgentTurns(manager, [command]);
    return {
      ok: true,
      data: {
        conversationId: command.data.conversationId,
        speakerId: command.data.speakerId,
        outcome: 'owed',
      },
    };
  }

  /**
   * Produces and submits the reply of a claimed turn; `settle` deletes its row in the submitting
   * transaction and says whether this claim still owned it. Throws on a failure worth retrying.
   */
  async execute(
    turn: ClaimedTurn,
    settle: (manager: EntityManager) => Promise<boolean>,
    signal?: AbortSignal,
  ): Promise<AgentTurnResult['outcome']> {
    const command = turn.command;
    const d = command.data;
    annotateConversation(d.conversationId, d.afterTurnIndex + 1);
    const settled = (
      outcome: AgentTurnResult['outcome'],
      messages: OutboxMessage[] = [],
      last?: { chunk: Record<string, unknown>; seq: number },
    ) =>
      this.relay.transaction(async (manager) => {
        if (!(await settle(manager))) return 'taken' as const;
        if (last) await this.appendChunk(manager, command, last.chunk, last.seq);
        await appendToOutbox(manager, messages);
        return outcome;
      });
    // Decided by an engine of the previous release, which streamed it inside its consumer. The
    // claim read this and the run's state already (one statement for both); a turn handed over
    // without them reads them here.
    const decidedBefore =
      turn.decidedBefore ?? (await storedReply(this.ds, ConsumerGroups.engine, command.id)) !== undefined;
    if (decidedBefore) return settled('stale');
    const state = turn.runState !== undefined ? stateOf(turn.runState) : await this.current(d.runId);
    const view = state?.conversations?.[d.conversationId];
    const prompt = state && agentPrompt(state, d.conversationId, d.speakerId);
    if (
      !state ||
      state.status !== 'suspended' ||
      !view ||
      !prompt ||
      view.status !== 'open' ||
      view.nextTurnIndex !== d.afterTurnIndex + 1
    ) {
      return settled('stale');
    }
    const messageId = `${d.conversationId}:agent:${d.speakerId}:${d.afterTurnIndex}`;
    const meta = {
      conversationId: d.conversationId,
      messageId,
      turnIndex: d.afterTurnIndex + 1,
      speakerId: d.speakerId,
    };
    let reply: Awaited<ReturnType<AgentTurnHandler['stream']>>;
    try {
      reply = await this.stream(
        command,
        prompt.messages,
        this.providers.providerFor(prompt.agent, prompt.scripted),
        meta,
        signal,
      );
    } catch (e) {
      if (signal?.aborted) throw e; // shutting down: the turn is given back, not failed
      const message = e instanceof Error ? e.message : String(e);
      this.logger.warn(`agent ${d.speakerId} of ${d.conversationId} failed: ${message}`);
      return settled('failed', [
        this.submit(command, state, {
          operation: 'close',
          reason: 'agent-error',
          outcome: { error: message, agentId: d.speakerId },
        }),
      ]);
    }
    return settled(
      'submitted',
      [
        this.submit(command, state, {
          operation: 'exchange',
          turn: { messageId, from: d.speakerId, role: 'agent', speakerId: d.speakerId, content: reply.text },
        }),
      ],
      reply.last,
    );
  }

  private async current(runId: string): Promise<RunRecord | undefined> {
    const rows = await this.ds.query<{ state: object }[]>('SELECT state FROM engine_runs WHERE run_id = $1', [
      runId,
    ]);
    return stateOf(rows[0]?.state);
  }

  /**
   * Streams the reply, appending its tokens as `output.chunk` events; returns the whole text and
   * the last chunk (`isLast`), which the caller appends with the submission.
   */
  private async stream(
    command: AgentTurnCommand,
    messages: readonly ChatMessage[],
    provider: ReturnType<AgentProviders['providerFor']>,
    meta: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<{ text: string; last: { chunk: Record<string, unknown>; seq: number } }> {
    const d = command.data;
    let pending = '';
    let last = Date.now();
    let final = '';
    let seq = 0;
    const chunk = (isLast: boolean) => {
      const c = {
        nodeId: d.nodeId,
        runId: d.runId,
        chunk: pending,
        isLast,
        meta: { ...meta, chunkIndex: seq++ },
      };
      pending = '';
      last = Date.now();
      return { chunk: c, seq };
    };
    const flush = async (): Promise<void> => {
      if (pending === '') return;
      const c = chunk(false);
      // Published right after its commit: readers see the chunk now, not when the turn ends.
      await this.relay.transaction((manager) => this.appendChunk(manager, command, c.chunk, c.seq));
    };
    for await (const part of provider.complete(
      {
        messages,
        metadata: { agentId: d.speakerId, conversationId: d.conversationId, turnIndex: d.afterTurnIndex + 1 },
      },
      signal ? { signal } : {},
    )) {
      if (part.type === 'delta') {
        pending += part.text;
        if (Date.now() - last >= FLUSH_MS) await flush();
      } else {
        final = part.text;
      }
    }
    // The last chunk is appended with the submission, in the transaction that settles the turn.
    return { text: final, last: chunk(true) };
  }

  /** Appends one `output.chunk` through the engine's decider, under the run's lock (ADR 0004). */
  private async appendChunk(
    manager: EntityManager,
    command: AgentTurnCommand,
    chunk: Record<string, unknown>,
    seq: number,
  ): Promise<void> {
    const d = command.data;
    const state = await loadRunForUpdate(manager, d.runId);
    const decided = await decideRun(
      {
        type: 'AppendOutput',
        runId: d.runId,
        nodeId: d.nodeId,
        conversationId: d.conversationId,
        chunks: [chunk],
        context: { ...commandContext(command, this.clock), commandId: `${command.id}#${seq}` },
      },
      state,
    );
    await commitDecision(manager, state, decided, command);
  }

  private submit(command: AgentTurnCommand, run: RunRecord, resumeValue: Record<string, unknown>) {
    const d = command.data;
    const resolve: ResolveInterruptCommand = {
      id: `agent-reply:${command.id}`,
      type: 'interrupt.resolve',
      occurredAt: this.clock.now(),
      correlationId: command.correlationId,
      causationId: command.id,
      actor: { tenant: run.tenant, principal: `agent:${d.speakerId}` },
      data: { runId: d.runId, nodeId: d.nodeId, interruptId: d.interruptId, via: 'agent', resumeValue },
    };
    assertCommand(resolve, INTERRUPT_COMMAND_DATA);
    return { topic: Topics.interruptCommands, key: d.runId, value: resolve };
  }
}
