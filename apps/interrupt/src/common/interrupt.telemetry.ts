import { INTERRUPT_KINDS } from '@openwop/contracts';
import type { InterruptFacts } from '@openwop/interrupt-domain';
import {
  annotateActiveSpan,
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

/** An interrupt ended at `now` (ISO): its duration, and a conversation turn when one was answered. */
export function interruptEnded(facts: InterruptFacts, status: 'resolved' | 'timeout' | 'cancelled', now: string): void {
  annotateInterrupt(facts);
  recordInterruptDuration(facts.kind, status, (Date.parse(now) - Date.parse(facts.requestedAt)) / 1000);
  if (status === 'resolved' && facts.kind.startsWith('conversation.')) countConversationTurn(facts.kind);
}
