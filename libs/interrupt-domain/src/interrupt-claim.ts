import { instantAfter } from '@openwop/kernel';
import { assertEligibleApprover } from './approver-eligibility';
import type { ClaimInterrupt, ReleaseInterrupt } from './interrupt.commands';
import { InterruptClaimed } from './interrupt.errors';
import type { InterruptEvent } from './interrupt.events';
import type { InterruptClaim, PendingInterrupt } from './interrupt.state';

/** The lease a claim gets when the claimant names none (15 minutes), and the longest it may ask (24 hours). */
export const DEFAULT_CLAIM_LEASE_MS = 15 * 60 * 1000;
export const MAX_CLAIM_LEASE_MS = 24 * 60 * 60 * 1000;

/**
 * The claim on a pending interrupt that still holds at `now`, or undefined. A lease ends by time
 * alone: nothing fires when it lapses, every reader compares its expiry with its own clock.
 */
export function liveClaim(state: PendingInterrupt, now: string): InterruptClaim | undefined {
  const claim = state.claim;
  return claim !== undefined && Date.parse(claim.expiresAt) > Date.parse(now) ? claim : undefined;
}

/**
 * First claim wins: a live claim by someone else refuses the claimant with 409 `interrupt_claimed`
 * (naming the holder and the expiry). The holder renews by claiming again; a lapsed claim is free.
 */
export function decideClaim(command: ClaimInterrupt, state: PendingInterrupt): InterruptEvent[] {
  const { context } = command;
  assertEligibleApprover(state.interrupt, context);
  const held = liveClaim(state, context.now);
  if (held !== undefined && held.claimedBy !== context.principal) throw new InterruptClaimed(state.interrupt.interruptId, held);
  const leaseMs = Math.min(Math.max(1, command.leaseMs ?? DEFAULT_CLAIM_LEASE_MS), MAX_CLAIM_LEASE_MS);
  return [
    {
      type: 'interrupt.claimed',
      data: { claimedBy: context.principal, claimedAt: context.now, expiresAt: instantAfter(Date.parse(context.now), leaseMs) },
    },
  ];
}

/**
 * Only the holder releases a live claim (anyone else gets 409 `interrupt_claimed`); releasing an
 * interrupt nobody holds (never claimed, or lapsed) changes nothing and is not an error.
 */
export function decideRelease(command: ReleaseInterrupt, state: PendingInterrupt): InterruptEvent[] {
  const { context } = command;
  const held = liveClaim(state, context.now);
  if (held === undefined) return [];
  if (held.claimedBy !== context.principal) throw new InterruptClaimed(state.interrupt.interruptId, held);
  return [{ type: 'interrupt.released', data: { releasedBy: context.principal, releasedAt: context.now } }];
}
