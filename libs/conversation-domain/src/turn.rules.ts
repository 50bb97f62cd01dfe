import { InvalidTurn, MissingSpeaker, SpeakerNotParticipant } from './conversation.errors';
import { msOf, systemMessageId } from './conversation.ids';
import type { AgentRef, ConversationTurn, TurnInput, TurnSchema } from './conversation.types';
import { contentViolations } from './turn-schema.validator';

/** What a turn is checked against. */
export interface TurnRules {
  readonly conversationId: string;
  readonly participants?: readonly AgentRef[];
  /** Applied to caller turns after the open; the initial turn is the workflow's own prompt. */
  readonly turnSchema?: TurnSchema;
}

/**
 * Checks a caller's turn and records it at `turnIndex`.
 * @throws {@link MissingSpeaker} / {@link SpeakerNotParticipant} for RFC 0101 attribution (checked
 * first); {@link InvalidTurn} for a `turnIndex` other than the next one or content that breaks the turn schema.
 */
export function recordTurn(
  input: TurnInput,
  turnIndex: number,
  now: string,
  rules: TurnRules,
): ConversationTurn {
  // Who may speak is decided before where: a non-member's turn is refused as such at any index.
  checkSpeaker(input, rules);
  if (input.turnIndex !== undefined && input.turnIndex !== turnIndex) {
    throw InvalidTurn.at('/turnIndex', `must be ${turnIndex}, the conversation's next turn`, {
      expectedTurnIndex: turnIndex,
    });
  }
  const content = input.content === undefined ? null : input.content;
  if (rules.turnSchema) {
    const violations = contentViolations(rules.turnSchema, content, '/content');
    if (violations.length) {
      throw new InvalidTurn('turn content does not match the conversation turn schema', violations, {
        messageId: input.messageId,
      });
    }
  }
  return {
    messageId: input.messageId,
    from: input.from,
    content,
    ts: input.ts ?? msOf(now),
    role: input.role,
    turnIndex,
    ...(input.speakerId !== undefined ? { speakerId: input.speakerId } : {}),
    ...(input.to !== undefined ? { to: input.to } : {}),
    ...(input.groupId !== undefined ? { groupId: input.groupId } : {}),
    ...(input.agent !== undefined ? { agent: input.agent } : {}),
  };
}

/**
 * RFC 0101: an agent turn names its speaker, and with a roster the speaker is a member. The
 * speaker of a `user`/`system` turn carries no meaning and is not checked.
 */
function checkSpeaker(input: TurnInput, rules: TurnRules): void {
  if (input.role !== 'agent') return;
  const { speakerId } = input;
  if (speakerId === undefined || speakerId === '') throw new MissingSpeaker(input.messageId);
  if (rules.participants && !rules.participants.some((p) => p.agentId === speakerId)) {
    throw new SpeakerNotParticipant(rules.conversationId, speakerId);
  }
}

/** A host-emitted `system` turn (opened without an initial turn, closed without a final one, timed out). */
export function systemTurn(
  conversationId: string,
  turnIndex: number,
  now: string,
  content: Readonly<Record<string, unknown>>,
  taken: ReadonlyMap<string, number>,
): ConversationTurn {
  return {
    messageId: systemMessageId(conversationId, turnIndex, taken),
    from: 'system',
    content,
    ts: msOf(now),
    role: 'system',
    turnIndex,
  };
}

/**
 * Whether `input` reuses the messageId of a recorded turn. A retry from the same producer (same
 * role, `from` and speaker) is that turn: the caller gets it back and nothing is written, even if
 * the content was regenerated. The same id from another producer is a collision, not a retry.
 * @throws {@link InvalidTurn} on a collision.
 */
export function isRetry(
  input: TurnInput,
  turns: readonly ConversationTurn[],
  seen: ReadonlyMap<string, number>,
): boolean {
  const index = seen.get(input.messageId);
  if (index === undefined) return false;
  const recorded = turns[index];
  if (
    recorded &&
    recorded.role === input.role &&
    recorded.from === input.from &&
    recorded.speakerId === input.speakerId
  ) {
    return true;
  }
  throw InvalidTurn.at('/messageId', `is already turn ${index}, from another speaker`, {
    messageId: input.messageId,
    turnIndex: index,
  });
}
