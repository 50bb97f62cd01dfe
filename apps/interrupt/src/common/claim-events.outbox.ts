import { createHash } from 'node:crypto';
import type { RecordEscalationCommand } from '@openwop/contracts';
import type { CommandContext, InterruptEvent, PendingInterrupt } from '@openwop/interrupt-domain';
import type { OutboxMessage } from '@openwop/platform-db';
import { toEngine, type Cause } from './engine-commands.outbox';

/**
 * The claim changes among `events` as `run.escalate` commands for the run log (ADR 0035): the
 * engine, the log's single writer, appends `interrupt.claimed` `{claimedBy, expiresAt}` or
 * `interrupt.released` `{previousClaimant, reason}` while the run still waits on the interrupt, so
 * SSE streams and webhooks see who works on it. Each id derives from the interrupt, the deciding
 * command and the event's place in its decision, so a re-sent message dedupes at the engine.
 */
export function claimMessages(
  state: PendingInterrupt,
  events: readonly InterruptEvent[],
  context: CommandContext,
  cause: Cause,
): OutboxMessage[] {
  const { interruptId, runId, nodeId, tenant } = state.interrupt;
  return events.flatMap((event, index): OutboxMessage[] => {
    if (event.type !== 'interrupt.claimed' && event.type !== 'interrupt.released') return [];
    const payload =
      event.type === 'interrupt.claimed'
        ? { claimedBy: event.data.claimedBy, expiresAt: event.data.expiresAt }
        : { previousClaimant: event.data.claimedBy, reason: event.data.reason };
    const command: RecordEscalationCommand = {
      id: claimMessageId(interruptId, context.commandId, index),
      type: 'run.escalate',
      occurredAt: context.now,
      correlationId: cause.correlationId,
      causationId: cause.id,
      actor: { tenant, principal: context.principal },
      data: { runId, nodeId, interruptId, type: event.type, payload },
    };
    return [toEngine(runId, command)];
  });
}

/**
 * `claim:` and 43 base64url characters of SHA-256 over (interrupt, command, index): fixed length,
 * because the engine records the command id as its events' `causationId` (at most 128 characters)
 * and an interrupt id alone may be longer than that.
 */
export function claimMessageId(interruptId: string, commandId: string, index: number): string {
  return `claim:${createHash('sha256').update(`${interruptId}\n${commandId}\n${index}`).digest('base64url')}`;
}

/** The timer's id for the end of one lease (the lease is named by its expiry), as short. */
export function claimExpiryId(interruptId: string, expiresAt: string): string {
  return `claim-expiry:${createHash('sha256').update(`${interruptId}\n${expiresAt}`).digest('base64url')}`;
}
