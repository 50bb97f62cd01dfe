/** A recorded `ConversationTurn` (`conversation-turn.schema.json`), as the transcript read model holds it. */
export interface RecordedTurn {
  readonly messageId: string;
  readonly from: string;
  readonly content: unknown;
  readonly ts: number;
  readonly role: 'user' | 'agent' | 'system';
  readonly turnIndex: number;
  readonly speakerId?: string;
  readonly to?: string;
  readonly groupId?: string;
  readonly agent?: Readonly<Record<string, unknown>>;
}

/** The channel of `RunSnapshot.channels` that conversation turns fold into (RFC 0005 §F). */
export const MESSAGES_CHANNEL = 'messages';

/**
 * One entry of the `messages` channel: a recorded `ConversationTurn` and the node that held it.
 * `messageId` is relative to the run (a leading `<runId>:` is dropped; a caller's own id is kept
 * as sent), so the channel of a `:fork` replay, whose conversations are re-folded under its own
 * run id, is byte-equal to its source's (RFC 0005 §F: "Replay carries the channel content through
 * unchanged"). The absolute ids stay on the conversation events and the transcript API.
 */
export interface ChannelMessage {
  readonly messageId: string;
  readonly nodeId: string;
  readonly from: string;
  readonly role: RecordedTurn['role'];
  readonly content: unknown;
  readonly ts: number;
  readonly turnIndex: number;
  readonly speakerId?: string;
  readonly to?: string;
  readonly groupId?: string;
  readonly agent?: Readonly<Record<string, unknown>>;
}

/** The recorded turns of one conversation of a run (the projector's `conversation_turns`). */
export interface RecordedConversation {
  readonly conversationId: string;
  readonly nodeId: string;
  readonly turns: readonly RecordedTurn[];
}

/**
 * Folds a run's recorded conversation turns through the `message` reducer (append-only,
 * idempotent on `messageId`) into the `messages` channel. Pure: the same turns give the same
 * channel, whatever order the rows were read in, so a projection rebuild or a replay fork that
 * records the same turns gets the same bytes. Conversations are ordered by their opening turn's
 * `ts` (then their run-relative id), turns by `turnIndex`. Empty when the run held no conversation.
 */
export function messagesChannel(
  runId: string,
  conversations: readonly RecordedConversation[],
): ChannelMessage[] {
  const relative = (id: string): string => (id.startsWith(`${runId}:`) ? id.slice(runId.length + 1) : id);
  const ordered = conversations
    .map((c) => ({
      ...c,
      key: relative(c.conversationId),
      turns: [...c.turns].sort((a, b) => a.turnIndex - b.turnIndex),
    }))
    .sort((a, b) => (a.turns[0]?.ts ?? 0) - (b.turns[0]?.ts ?? 0) || compare(a.key, b.key));
  const seen = new Set<string>();
  const channel: ChannelMessage[] = [];
  for (const c of ordered) {
    for (const t of c.turns) {
      const messageId = relative(t.messageId);
      if (seen.has(messageId)) continue; // the message reducer: a messageId is folded once
      seen.add(messageId);
      channel.push({
        messageId,
        nodeId: c.nodeId,
        from: t.from,
        role: t.role,
        content: t.content,
        ts: t.ts,
        turnIndex: t.turnIndex,
        ...(t.speakerId !== undefined ? { speakerId: t.speakerId } : {}),
        ...(t.to !== undefined ? { to: t.to } : {}),
        ...(t.groupId !== undefined ? { groupId: t.groupId } : {}),
        ...(t.agent !== undefined ? { agent: t.agent } : {}),
      });
    }
  }
  return channel;
}

/** `RunSnapshot.channels` for a run's conversations: `{messages: [...]}`, or undefined when it held none. */
export function runChannels(
  runId: string,
  conversations: readonly RecordedConversation[],
): { readonly [MESSAGES_CHANNEL]: ChannelMessage[] } | undefined {
  const messages = messagesChannel(runId, conversations);
  return messages.length > 0 ? { [MESSAGES_CHANNEL]: messages } : undefined;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
