import { assertNever, instantAfter, type Decider } from '@openwop/kernel';
import { resolveApproval } from './approval/approval.resolution';
import { dueEscalationEvents } from './escalation/escalation.decision';
import { nextEscalationStep, openedAtMs, readEscalationPolicy } from './escalation/escalation.policy';
import { checkClarificationAnswers } from './clarification.resolution';
import { checkExternalEvent } from './external-event.resolution';
import { assertCredentialAttested } from './credential.resolution';
import { assertEligibleApprover } from './approver-eligibility';
import { decideClaim, decideClaimExpiry, decideRelease } from './interrupt-claim';
import type {
  CancelInterrupt,
  CommandContext,
  EscalateInterrupt,
  ExpireInterrupt,
  InterruptCommand,
  InterruptFacts,
  OpenInterrupt,
  ResolveInterrupt,
} from './interrupt.commands';
import {
  BearerResolutionRequired,
  InterruptAlreadyResolved,
  InterruptCancelled,
  InterruptGone,
  InterruptNotFound,
  InvalidResumeValue,
} from './interrupt.errors';
import type { InterruptEvent } from './interrupt.events';
import {
  evolveInterrupt,
  initialInterruptState,
  type InterruptState,
  type PendingInterrupt,
} from './interrupt.state';
import { isJsonObject } from './json-value.util';
import { schemaViolations } from './json-schema.validator';

/**
 * Decides the events of one command on one interrupt, or throws a {@link DomainError} subclass.
 * Pure: time and identity arrive in `command.context`.
 */
export function decideInterrupt(command: InterruptCommand, state: InterruptState): InterruptEvent[] {
  switch (command.type) {
    case 'OpenInterrupt':
      return open(command, state);
    case 'ResolveInterrupt':
      return resolve(command, state);
    case 'ExpireInterrupt':
      return expire(command, state);
    case 'CancelInterrupt':
      return cancel(command, state);
    case 'EscalateInterrupt':
      return escalate(command, state);
    case 'ClaimInterrupt':
      return decideClaim(
        command,
        addressedPending(command.runId, command.nodeId, undefined, command.context, state),
      );
    case 'ReleaseInterrupt':
      return decideRelease(
        command,
        addressedPending(command.runId, command.nodeId, undefined, command.context, state),
      );
    case 'ExpireClaim':
      return decideClaimExpiry(command, state);
    default:
      return assertNever(command, 'interrupt command');
  }
}

/** The interrupt aggregate in the kernel's decider shape. */
export const interruptDecider: Decider<InterruptCommand, InterruptEvent, InterruptState> = {
  initialState: initialInterruptState,
  decide: decideInterrupt,
  evolve: evolveInterrupt,
};

/** Idempotent by interruptId: an interrupt that exists is never opened again. */
function open(command: OpenInterrupt, state: InterruptState): InterruptEvent[] {
  if (state.status !== 'none') return [];
  const { context } = command;
  const interrupt: InterruptFacts = {
    ...command.interrupt,
    tenant: context.tenant,
    ...deadlineOf(command.interrupt.requestedAt, command.interrupt.timeoutMs, context.now),
  };
  const opened: InterruptEvent = { type: 'interrupt.opened', data: { interrupt } };
  if (!command.runCancelled) return [opened];
  return [
    opened,
    {
      type: 'interrupt.cancelled',
      data: { cancelledAt: context.now, reason: 'run cancelled before the interrupt opened' },
    },
  ];
}

function deadlineOf(
  requestedAt: string,
  timeoutMs: number | undefined,
  now: string,
): { deadlineAt?: string } {
  if (timeoutMs === undefined) return {};
  const from = Number.isNaN(Date.parse(requestedAt)) ? Date.parse(now) : Date.parse(requestedAt);
  return { deadlineAt: instantAfter(from, timeoutMs) };
}

function resolve(command: ResolveInterrupt, state: InterruptState): InterruptEvent[] {
  const { runId, nodeId, interruptId, context } = command;
  return resolvePending(addressedPending(runId, nodeId, interruptId, context, state), command);
}

/** The pending interrupt a command on (run, node) addresses, or the refusal that says why there is none. */
function addressedPending(
  runId: string,
  nodeId: string,
  interruptId: string | undefined,
  context: CommandContext,
  state: InterruptState,
): PendingInterrupt {
  if (state.status === 'none') throw new InterruptNotFound(runId, nodeId);
  const held = state.interrupt;
  const addressed =
    held.runId === runId &&
    held.nodeId === nodeId &&
    (interruptId === undefined || interruptId === held.interruptId);
  // Another tenant's interrupt is indistinguishable from no interrupt.
  if (!addressed || held.tenant !== context.tenant) throw new InterruptNotFound(runId, nodeId);
  switch (state.status) {
    case 'cancelled':
      // Cancelled by its parent's cancel cascading down: gone (interrupt-profiles.md §cascade-cancel).
      if (state.parentRunId !== undefined) throw new InterruptGone(held.interruptId, state.parentRunId);
      throw new InterruptCancelled(held.interruptId);
    case 'resolved':
    case 'expired':
      throw new InterruptAlreadyResolved(held.interruptId, state.status);
    case 'pending':
      return state;
    default:
      return assertNever(state, 'interrupt state');
  }
}

function resolvePending(state: PendingInterrupt, command: ResolveInterrupt): InterruptEvent[] {
  const { interrupt } = state;
  const { context } = command;
  if (command.via === 'token' && requiresBearer(interrupt))
    throw new BearerResolutionRequired(interrupt.interruptId);
  assertEligibleApprover(interrupt, context);
  if (interrupt.kind === 'approval') return resolveApproval(state, command.resumeValue, context, command.via);
  const submitted = command.resumeValue === undefined ? null : command.resumeValue;
  if (interrupt.kind === 'clarification') checkClarificationAnswers(interrupt.data, submitted);
  const resumeValue =
    interrupt.kind === 'external-event' ? checkExternalEvent(interrupt, submitted) : submitted;
  if (
    interrupt.kind === 'conversation.exchange' &&
    isJsonObject(interrupt.data) &&
    isJsonObject(interrupt.data.outcomeSchema)
  ) {
    // An RFC 0005 close (`{operation: 'close', outcome}`) is checked on its outcome.
    const closure = isJsonObject(resumeValue) && resumeValue.operation === 'close';
    assertMatches(
      interrupt.data.outcomeSchema,
      closure ? (resumeValue.outcome ?? null) : resumeValue,
      'outcomeSchema',
    );
  }
  if (interrupt.resumeSchema) assertMatches(interrupt.resumeSchema, resumeValue, 'resumeSchema');
  assertCredentialAttested(interrupt, resumeValue, command.credentialCheckedFor);
  return [
    {
      type: 'interrupt.resolved',
      data: { resumeValue, resolvedBy: context.principal, resolvedAt: context.now },
    },
  ];
}

function assertMatches(schema: unknown, value: unknown, name: string): void {
  const violations = schemaViolations(schema, value);
  if (violations.length)
    throw new InvalidResumeValue(`resumeValue does not match the interrupt ${name}`, violations);
}

/**
 * A deadline only ends a pending interrupt; a stale timer on a decided one is a no-op. The timeout is
 * the escalation's last step (ADR 0034): every step due by now that is not done yet is decided
 * first, in order, each its own event, so an expiry that comes late (the timer was down past the
 * whole chain) never skips one.
 */
function expire(command: ExpireInterrupt, state: InterruptState): InterruptEvent[] {
  if (state.status !== 'pending' || state.interrupt.interruptId !== command.interruptId) return [];
  const { now } = command.context;
  return [...dueEscalationEvents(state, now), { type: 'interrupt.expired', data: { expiredAt: now } }];
}

/**
 * Escalation (ADR 0034), each step decided once: only on a pending interrupt, only from the next
 * undone step (`escalated`, which the command names), only once it is due. Every step due by now
 * is decided, in order, each its own event: a timer that gets to the interrupt late fires the whole
 * overdue part of the chain. A stale, duplicate or early timer decides nothing.
 */
function escalate(command: EscalateInterrupt, state: InterruptState): InterruptEvent[] {
  if (state.status !== 'pending' || state.interrupt.interruptId !== command.interruptId) return [];
  if ((state.escalated ?? 0) !== command.step) return [];
  return dueEscalationEvents(state, command.context.now);
}

/** The due time of the interrupt's next escalation step, while it is pending; undefined otherwise. */
export function escalationDueAt(state: InterruptState): string | undefined {
  if (state.status !== 'pending') return undefined;
  const { interrupt } = state;
  const policy = readEscalationPolicy(interrupt.data);
  if (!policy) return undefined;
  return nextEscalationStep(
    policy,
    openedAtMs(interrupt.requestedAt, interrupt.requestedAt),
    state.escalated ?? 0,
  )?.dueAt;
}

function cancel(command: CancelInterrupt, state: InterruptState): InterruptEvent[] {
  if (state.status !== 'pending') return [];
  const { reason, parentRunId } = command;
  return [
    {
      type: 'interrupt.cancelled',
      data: {
        cancelledAt: command.context.now,
        ...(reason !== undefined ? { reason } : {}),
        ...(parentRunId !== undefined ? { parentRunId } : {}),
      },
    },
  ];
}

/**
 * `data.resolveAuth: 'bearer'` (`openwop-interrupt-auth-required`): only an authenticated caller on
 * the run-scoped surface may resolve; a signed callback token is refused.
 */
export function requiresBearer(interrupt: InterruptFacts): boolean {
  return isJsonObject(interrupt.data) && interrupt.data.resolveAuth === 'bearer';
}
