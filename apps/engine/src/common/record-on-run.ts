import type { EntityManager } from 'typeorm';
import type { CommandReply, RecordConversationCommand, RecordEscalationCommand } from '@openwop/contracts';
import { decideRun, type RecordConversation, type RecordEscalation } from '@openwop/engine-domain';
import type { Clock } from '../engine.di-tokens';
import { commandContext } from './command-context';
import { refusingDomainErrors } from './domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate } from './run.store';

/** What the engine answers when it recorded a step the interrupt service decided. */
export interface RecordedOnRun {
  readonly runId: string;
  /** False when the decider had nothing to append (a duplicate, or the run no longer waits there). */
  readonly recorded: boolean;
  readonly lastSequence: number;
}

/** The fields every record command gives the decider, before its kind and event type. */
export type RecordBase = Omit<RecordConversation, 'type' | 'eventType'>;

/**
 * Appends to the run log what the interrupt service decided about a waiting node (a conversation
 * turn or close, an escalation step), the engine being the log's single writer: load the run under
 * its lock, decide what `toDecision` makes of the command's data, commit. A domain refusal is the reply.
 */
export async function recordOnRun(
  manager: EntityManager,
  command: RecordConversationCommand | RecordEscalationCommand,
  clock: Clock,
  toDecision: (base: RecordBase) => RecordConversation | RecordEscalation,
): Promise<CommandReply<RecordedOnRun>> {
  const d = command.data;
  const state = await loadRunForUpdate(manager, d.runId);
  const base = {
    runId: d.runId,
    nodeId: d.nodeId,
    interruptId: d.interruptId,
    payload: d.payload,
    context: commandContext(command, clock),
  };
  const decided = await refusingDomainErrors(() => decideRun(toDecision(base), state));
  if (!decided.ok) return decided.reply;
  await commitDecision(manager, state, decided.value, command);
  return {
    ok: true,
    data: {
      runId: d.runId,
      recorded: decided.value.events.length > 0,
      lastSequence: lastSequenceOf(decided.value.state),
    },
  };
}
