import { Inject, Injectable, Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
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
import { appendToOutbox, decideOnce, storedReply, type OutboxRelay } from '@openwop/platform-db';
import { DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { commandContext } from '../common/command-context';
import { commitDecision, loadRunForUpdate } from '../common/run.store';
import { AgentProviders } from './agent-providers';
import { annotateConversation } from '@openwop/observability';

/** How long streamed tokens wait before they are appended together as `output.chunk` events. */
const FLUSH_MS = 40;

export interface AgentTurnResult {
  readonly conversationId: string;
  readonly speakerId: string;
  /** `submitted`: the reply went to the interrupt service; `stale`: the conversation moved on or closed. */
  readonly outcome: 'submitted' | 'stale' | 'failed';
}

/**
 * `agent.turn`: an agent owes its conversation a reply. Streams the provider's answer into the run
 * log as `output.chunk` events (a few tokens per transaction), then submits the whole reply as the
 * agent's turn to the interrupt service, which records it like any other turn. The submission is
 * decided once by the command id; a redelivery after a crash streams again (its chunks may repeat),
 * but the turn's messageId is derived from the conversation and turn, so the turn never doubles.
 */
@Injectable()
export class AgentTurnHandler {
  private readonly logger = new Logger(AgentTurnHandler.name);

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    private readonly providers: AgentProviders,
  ) {}

  async handle(command: AgentTurnCommand): Promise<CommandReply> {
    const d = command.data;
    annotateConversation(d.conversationId, d.afterTurnIndex + 1);
    const done = await storedReply(this.ds, ConsumerGroups.engine, command.id);
    if (done) return done;
    const result = (outcome: AgentTurnResult['outcome']): CommandReply<AgentTurnResult> => ({
      ok: true,
      data: { conversationId: d.conversationId, speakerId: d.speakerId, outcome },
    });
    const state = await this.current(d.runId);
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
      return decideOnce(this.ds, ConsumerGroups.engine, command.id, async () => result('stale'));
    }
    const messageId = `${d.conversationId}:agent:${d.speakerId}:${d.afterTurnIndex}`;
    const meta = {
      conversationId: d.conversationId,
      messageId,
      turnIndex: d.afterTurnIndex + 1,
      speakerId: d.speakerId,
    };
    let text: string;
    try {
      text = await this.stream(
        command,
        prompt.messages,
        this.providers.providerFor(prompt.agent, prompt.scripted),
        meta,
      );
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.logger.warn(`agent ${d.speakerId} of ${d.conversationId} failed: ${message}`);
      return decideOnce(this.ds, ConsumerGroups.engine, command.id, async (manager) => {
        await appendToOutbox(manager, [
          this.submit(command, state, {
            operation: 'close',
            reason: 'agent-error',
            outcome: { error: message, agentId: d.speakerId },
          }),
        ]);
        return result('failed');
      });
    }
    return decideOnce(this.ds, ConsumerGroups.engine, command.id, async (manager) => {
      await appendToOutbox(manager, [
        this.submit(command, state, {
          operation: 'exchange',
          turn: { messageId, from: d.speakerId, role: 'agent', speakerId: d.speakerId, content: text },
        }),
      ]);
      return result('submitted');
    });
  }

  private async current(runId: string): Promise<RunRecord | undefined> {
    const rows = await this.ds.query<{ state: object }[]>(
      'SELECT state FROM engine_runs WHERE run_id = $1',
      [runId],
    );
    const state = runStateFromDocument(rows[0]?.state);
    return state.status === 'none' ? undefined : state;
  }

  /** Streams the reply, appending its tokens as `output.chunk` events; returns the whole text. */
  private async stream(
    command: AgentTurnCommand,
    messages: readonly ChatMessage[],
    provider: ReturnType<AgentProviders['providerFor']>,
    meta: Record<string, unknown>,
  ): Promise<string> {
    const d = command.data;
    let pending = '';
    let last = Date.now();
    let final = '';
    let seq = 0;
    const flush = async (isLast: boolean): Promise<void> => {
      if (pending === '' && !isLast) return;
      const chunk = {
        nodeId: d.nodeId,
        runId: d.runId,
        chunk: pending,
        isLast,
        meta: { ...meta, chunkIndex: seq++ },
      };
      pending = '';
      last = Date.now();
      // Published right after its commit: readers see the chunk now, not when the turn ends.
      await this.relay.transaction(async (manager) => {
        const state = await loadRunForUpdate(manager, d.runId);
        const decided = await decideRun(
          {
            type: 'AppendOutput',
            runId: d.runId,
            nodeId: d.nodeId,
            conversationId: d.conversationId,
            chunks: [chunk],
            context: { ...commandContext(command), commandId: `${command.id}#${seq}` },
          },
          state,
        );
        await commitDecision(manager, state, decided, command);
      });
    };
    for await (const part of provider.complete({
      messages,
      metadata: { agentId: d.speakerId, conversationId: d.conversationId, turnIndex: d.afterTurnIndex + 1 },
    })) {
      if (part.type === 'delta') {
        pending += part.text;
        if (Date.now() - last >= FLUSH_MS) await flush(false);
      } else {
        final = part.text;
      }
    }
    await flush(true);
    return final;
  }

  private submit(command: AgentTurnCommand, run: RunRecord, resumeValue: Record<string, unknown>) {
    const d = command.data;
    const resolve: ResolveInterruptCommand = {
      id: `agent-reply:${command.id}`,
      type: 'interrupt.resolve',
      occurredAt: new Date().toISOString(),
      correlationId: command.correlationId,
      causationId: command.id,
      actor: { tenant: run.tenant, principal: `agent:${d.speakerId}` },
      data: { runId: d.runId, nodeId: d.nodeId, interruptId: d.interruptId, via: 'agent', resumeValue },
    };
    assertCommand(resolve, INTERRUPT_COMMAND_DATA);
    return { topic: Topics.interruptCommands, key: d.runId, value: resolve };
  }
}
