import { instantAfter } from '@openwop/kernel';
import { assertEligibleApprover } from './approver-eligibility';
import type { ClaimInterrupt, CommandContext, ExpireClaim, ReleaseInterrupt } from './interrupt.commands';
import { InterruptClaimed } from './interrupt.errors';
import type { InterruptEvent } from './interrupt.events';
import type { InterruptClaim, InterruptState, PendingInterrupt } from './interrupt.state';

/** The lease a claim gets when the claimant names none (15 minutes), and the longest it may ask (24 hours). */
export const DEFAULT_CLAIM_LEASE_MS = 15 * 60 * 1000;
export const MAX_CLAIM_LEASE_MS = 24 * 60 * 60 * 1000;

/**
 * The claim on a pending interrupt that still holds at `now`, or undefined. A lease ends by time:
 * every reader compares its expiry with its own clock; the `expired` release that tells watchers is
 * decided later, once (see {@link lapsedClaimRelease}).
 */
export function liveClaim(state: PendingInterrupt, now: string): InterruptClaim | undefined {
  const claim = state.claim;
  return claim !== undefined && Date.parse(claim.expiresAt) > Date.parse(now) ? claim : undefined;
}

/**
 * The `expired` release of a claim whose lease lapsed but is still in the state, or nothing. Every
 * lapse is told exactly once: the claim leaves the state with this event, under the row lock.
 */
export function lapsedClaimRelease(state: PendingInterrupt, context: CommandContext): InterruptEvent[] {
  const claim = state.claim;
  if (claim === undefined || liveClaim(state, context.now) !== undefined) return [];
  return [
    {
      type: 'interrupt.released',
      data: {
        releasedBy: context.principal,
        releasedAt: context.now,
        claimedBy: claim.claimedBy,
        reason: 'expired',
      },
    },
  ];
}

/**
 * First claim wins: a live claim by someone else refuses the claimant with 409 `interrupt_claimed`
 * (naming the holder and the expiry). The holder renews by claiming again; a lapsed claim is free
 * (its `expired` release comes first, if the timer has not decided it yet).
 */
export function decideClaim(command: ClaimInterrupt, state: PendingInterrupt): InterruptEvent[] {
  const { context } = command;
  assertEligibleApprover(state.interrupt, context);
  const held = liveClaim(state, context.now);
  if (held !== undefined && held.claimedBy !== context.principal)
    throw new InterruptClaimed(state.interrupt.interruptId, held);
  const leaseMs = Math.min(Math.max(1, command.leaseMs ?? DEFAULT_CLAIM_LEASE_MS), MAX_CLAIM_LEASE_MS);
  return [
    ...lapsedClaimRelease(state, context),
    {
      type: 'interrupt.claimed',
      data: {
        claimedBy: context.principal,
        claimedAt: context.now,
        expiresAt: instantAfter(Date.parse(context.now), leaseMs),
      },
    },
  ];
}

/** The timer's end of a lease: the `expired` release of a lapsed claim of a pending interrupt, once. */
export function decideClaimExpiry(command: ExpireClaim, state: InterruptState): InterruptEvent[] {
  if (state.status !== 'pending' || state.interrupt.interruptId !== command.interruptId) return [];
  return lapsedClaimRelease(state, command.context);
}

/**
 * Only the holder releases a live claim (anyone else gets 409 `interrupt_claimed`); releasing an
 * interrupt nobody holds is not an error and decides nothing but the `expired` release of a lapsed
 * claim the timer has not ended yet.
 */
export function decideRelease(command: ReleaseInterrupt, state: PendingInterrupt): InterruptEvent[] {
  const { context } = command;
  const held = liveClaim(state, context.now);
  if (held === undefined) return lapsedClaimRelease(state, context);
  if (held.claimedBy !== context.principal) throw new InterruptClaimed(state.interrupt.interruptId, held);
  return [
    {
      type: 'interrupt.released',
      data: {
        releasedBy: context.principal,
        releasedAt: context.now,
        claimedBy: held.claimedBy,
        reason: 'released',
      },
    },
  ];
}
