import { randomUUID } from 'node:crypto';
import type { OpenWopClient } from '@openwop/sdk';
import type { Output } from '../util/output';
import type { Interruption } from './interruption';
import type { LineInput } from './line-input';

/** Lines that close a conversation (besides an empty line and end of input). */
const CLOSE_WORDS = new Set(['exit', 'quit']);

/** `ai.message.chunk` data (`conversation-api` contract): the chunk and which turn it belongs to. */
interface Chunk {
  readonly nodeId?: string;
  readonly chunk?: unknown;
  readonly isLast?: boolean;
  readonly meta?: { readonly conversationId?: string; readonly turnIndex?: number };
}

interface Turn {
  readonly role?: string;
  readonly content?: unknown;
  readonly turnIndex?: number;
}

/** What the follower does after an agent turn: go on following, or stop (Ctrl+C, an error shown). */
export type SessionStep = 'continue' | 'stop';

/**
 * The terminal side of an `agent.conversation` step: the agent's reply streams as its chunks arrive,
 * then a `> ` prompt; each line is the next user turn; an empty line, `exit`, `quit` or end of
 * input closes the conversation (the step's output is the last agent reply). Driven by the run's
 * events, so `wop attach` replays the transcript and prompts only when the conversation is waiting
 * for the person.
 */
export class ConversationSession {
  private readonly opened = new Set<string>();
  /** `conversationId#turnIndex` of turns whose chunks were printed. */
  private readonly streamed = new Set<string>();
  /** Message ids of the turns typed in this process (an attach shows the others from the log). */
  private readonly sent = new Set<string>();

  constructor(
    private readonly client: OpenWopClient,
    private readonly runId: string,
    private readonly out: Output,
    private readonly input: LineInput,
    private readonly interruption: Interruption,
  ) {}

  onOpened(
    nodeId: string | undefined,
    payload: { conversationId?: string; initialTurn?: { role?: string; content?: unknown } },
  ): void {
    const id = payload.conversationId ?? '';
    if (this.opened.has(id)) return;
    this.opened.add(id);
    this.out.line(
      this.out.paint(
        'bold',
        `Conversation at step ${nodeId ?? '?'} — type a turn; an empty line (or exit, quit) closes it.`,
      ),
    );
    const first = payload.initialTurn;
    if (first?.content !== undefined && first.content !== '') {
      this.out.line(this.out.paint('dim', `${first.role ?? 'system'}: ${contentText(first.content)}`));
    }
  }

  /** A person's turn from the log: shown unless it was typed here (an attach replays the others). */
  onUserTurn(turn: { messageId?: string; content?: unknown }): void {
    if (turn.messageId !== undefined && this.sent.has(turn.messageId)) return;
    this.out.endLine();
    this.out.line(`> ${contentText(turn.content)}`);
  }

  onChunk(data: Chunk): void {
    const key = `${data.meta?.conversationId ?? ''}#${data.meta?.turnIndex ?? ''}`;
    if (!this.streamed.has(key)) {
      this.streamed.add(key);
      this.out.write(this.out.paint('cyan', 'agent: '));
    }
    if (typeof data.chunk === 'string') this.out.write(data.chunk);
  }

  /** An agent turn was recorded: finish its line, then take the person's next turn if it is theirs to give. */
  async onAgentTurn(nodeId: string, conversationId: string, turn: Turn): Promise<SessionStep> {
    const key = `${conversationId}#${turn.turnIndex ?? ''}`;
    if (!this.streamed.has(key)) {
      this.streamed.add(key);
      this.out.write(`${this.out.paint('cyan', 'agent: ')}${contentText(turn.content)}`);
    }
    this.out.endLine();
    const after = await this.client.getConversation(this.runId, conversationId, {
      after: turn.turnIndex ?? 0,
      limit: 1,
    });
    if (after.status !== 'open' || after.turns.length > 0) return 'continue';
    const line = await this.input.ask('> ', this.interruption.signal);
    if (this.interruption.requested) return 'stop';
    if (line === null || line.trim() === '' || CLOSE_WORDS.has(line.trim().toLowerCase())) {
      await this.interruption.critical(() => this.client.closeConversation(this.runId, nodeId));
      this.out.line(this.out.paint('dim', 'conversation closed'));
    } else {
      const messageId = randomUUID();
      this.sent.add(messageId);
      await this.interruption.critical(() => this.client.sendTurn(this.runId, nodeId, line, { messageId }));
    }
    return this.interruption.requested ? 'stop' : 'continue';
  }
}

function contentText(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}
