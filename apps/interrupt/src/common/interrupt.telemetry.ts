import { INTERRUPT_KINDS } from '@openwop/contracts';
import type { InterruptFacts } from '@openwop/interrupt-domain';
import {
  annotateActiveSpan,
  annotateConversation,
  countConversationTurn,
  countInterruptRequested,
  interruptAttributes,
  recordInterruptDuration,
  seedCounters,
} from '@openwop/observability';

const CONVERSATION_KINDS = INTERRUPT_KINDS.filter((k) => k.startsWith('conversation.'));

/** Shows the interrupt counters at 0 from the service's start. */
export function seedInterruptMetrics(): void {
  seedCounters({ interruptKinds: INTERRUPT_KINDS, conversationKinds: CONVERSATION_KINDS });
}

/** Tags the active span (the command's consumer span) with the interrupt's HITL attributes. */
export function annotateInterrupt(facts: InterruptFacts): void {
  annotateActiveSpan(interruptAttributes(facts.kind, facts.interruptId));
}

export function interruptOpened(facts: InterruptFacts): void {
  annotateInterrupt(facts);
  countInterruptRequested(facts.kind);
}

/** An interrupt ended at `now` (ISO): its duration from the request. */
export function interruptEnded(
  facts: InterruptFacts,
  status: 'resolved' | 'timeout' | 'cancelled',
  now: string,
): void {
  annotateInterrupt(facts);
  recordInterruptDuration(facts.kind, status, (Date.parse(now) - Date.parse(facts.requestedAt)) / 1000);
}

/** A conversation turn was recorded on a conversation interrupt (`turnIndex` absent: a close without one). */
export function conversationTurnRecorded(
  facts: InterruptFacts,
  conversationId: string,
  turnIndex: number | undefined,
): void {
  annotateInterrupt(facts);
  annotateConversation(conversationId, turnIndex);
  if (turnIndex !== undefined) countConversationTurn(facts.kind);
}
