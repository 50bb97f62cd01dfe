import { Headers, Topics, type CommandEnvelope } from '@openwop/contracts';
import { digestOf, type AuditFact, type AuditRoute } from '@openwop/audit-chain';
import {
  admittingEntry,
  enforcedApprovers,
  readEscalationPolicy,
  type InterruptEvent,
  type InterruptFacts,
  type InterruptReassigned,
} from '@openwop/interrupt-domain';
import type { OutboxMessage } from '@openwop/platform-db';

/**
 * The audit log's facts, put in the outbox by the transaction that decides (so a decision and its
 * fact commit together), on the audit topic keyed by tenant (so one tenant's facts stay in order).
 * They carry who, which key, when, what and the route; never a key or an answer's text (a digest).
 */

/** The route of a command from the gateway or the token service. */
function routeOf(command: CommandEnvelope, via: string | undefined, otherwise: AuditRoute): AuditRoute {
  if (command.actor.via === 'bulk') return 'bulk';
  return via === 'token' ? 'token-link' : otherwise;
}

/** The key behind a command: the API key's id, or `token:<kid>` (the token service's principal) for a signed link. */
function keyOf(command: CommandEnvelope, via: string | undefined): { keyId?: string } {
  const keyId = command.actor.keyId ?? (via === 'token' ? command.actor.principal : undefined);
  return keyId !== undefined ? { keyId } : {};
}

/**
 * The fact of an accepted `interrupt.resolve`: `resolve` when it decided the interrupt, `vote` for
 * a vote short of quorum; nothing for an `ask` (a question, not a decision). On an enforced
 * approvers list it records `admittedAs`, the entry that admitted the principal (a `group:<name>` or `role:<name>`
 * when it answered as a member): the membership of the moment, kept with the decision.
 */
export function resolveFact(
  command: CommandEnvelope,
  via: string | undefined,
  interrupt: InterruptFacts,
  events: readonly InterruptEvent[],
  resumeValue: unknown,
  at: string,
): OutboxMessage[] {
  const resolved = events.some((e) => e.type === 'interrupt.resolved');
  if (!resolved && !events.some((e) => e.type === 'interrupt.vote-recorded')) return [];
  const action = (resumeValue as { action?: unknown } | null | undefined)?.action;
  // On an enforced list, the entry that admitted the principal: itself, or the group it answered for.
  const listed = enforcedApprovers(interrupt);
  const admittedAs = listed !== undefined ? admittingEntry(listed, command.actor) : undefined;
  return [
    message({
      factId: `resolve:${command.id}`,
      tenant: interrupt.tenant,
      at,
      who: command.actor.principal,
      ...keyOf(command, via),
      route: routeOf(command, via, 'api'),
      action: resolved ? 'resolve' : 'vote',
      ...where(interrupt),
      outcome: resolved ? 'resolved' : 'pending',
      ...(typeof action === 'string' ? { answerAction: action } : {}),
      answerDigest: digestOf(resumeValue),
      ...(admittedAs !== undefined ? { admittedAs } : {}),
    }),
  ];
}

/**
 * The fact of an interrupt the timer (or an `interrupt.expire`) ended: route `escalation` when the
 * interrupt has an escalation policy, whose last step the timeout is (ADR 0034), else `timeout`.
 */
export function expireFact(interrupt: InterruptFacts, who: string, at: string): OutboxMessage {
  return message({
    factId: `expire:${interrupt.interruptId}`,
    tenant: interrupt.tenant,
    at,
    who,
    route: readEscalationPolicy(interrupt.data) ? 'escalation' : 'timeout',
    action: 'expire',
    ...where(interrupt),
    outcome: 'timeout',
  });
}

/** The fact of an escalation's reassignment (ADR 0034): who decides changed, route `escalation`. */
export function reassignFact(
  interrupt: InterruptFacts,
  event: InterruptReassigned,
  who: string,
): OutboxMessage {
  return message({
    factId: `reassign:${interrupt.interruptId}:${event.data.step}`,
    tenant: interrupt.tenant,
    at: event.data.reassignedAt,
    who,
    route: 'escalation',
    action: 'reassign',
    ...where(interrupt),
    outcome: 'pending',
    reason: `approvers: ${event.data.approvers.join(', ')}`,
  });
}

/** The fact of an accepted `run.cancel`, with the interrupts it closed. */
export function cancelFact(
  command: CommandEnvelope<string, { runId: string; reason?: string }>,
  cancelledInterrupts: readonly string[],
  at: string,
): OutboxMessage {
  const { runId, reason } = command.data;
  return message({
    factId: `cancel:${command.id}`,
    tenant: command.actor.tenant,
    at,
    who: command.actor.principal,
    ...keyOf(command, undefined),
    route: routeOf(command, undefined, 'cancel'),
    action: 'cancel',
    runId,
    outcome: 'cancelled',
    ...(reason !== undefined ? { reason } : {}),
    interrupts: [...cancelledInterrupts],
  });
}

function where(interrupt: InterruptFacts): Pick<AuditFact, 'runId' | 'nodeId' | 'interruptId' | 'kind'> {
  return {
    runId: interrupt.runId,
    nodeId: interrupt.nodeId,
    interruptId: interrupt.interruptId,
    kind: interrupt.kind,
  };
}

function message(fact: AuditFact): OutboxMessage {
  return {
    topic: Topics.auditFacts,
    key: fact.tenant,
    value: fact,
    headers: { [Headers.messageId]: fact.factId, [Headers.messageType]: `audit.${fact.action}` },
  };
}
