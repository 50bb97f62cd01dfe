import { approvalData, ctx, given, LATER, NOW, opened, resolveWith } from './interrupt.given.spec';
import type { ClaimInterrupt, ReleaseInterrupt } from './interrupt.commands';
import type { InterruptEvent } from './interrupt.events';
import { DEFAULT_CLAIM_LEASE_MS, liveClaim, MAX_CLAIM_LEASE_MS } from './interrupt-claim';
import type { PendingInterrupt } from './interrupt.state';

const claim = (principal: string, over: Partial<ClaimInterrupt> = {}): ClaimInterrupt => ({
  type: 'ClaimInterrupt',
  runId: 'r1',
  nodeId: 'gate',
  context: ctx(principal),
  ...over,
});
const release = (principal: string, now = NOW): ReleaseInterrupt => ({
  type: 'ReleaseInterrupt',
  runId: 'r1',
  nodeId: 'gate',
  context: ctx(principal, { now }),
});
const claimed = (claimedBy: string, expiresAt: string, claimedAt = NOW): InterruptEvent => ({
  type: 'interrupt.claimed',
  data: { claimedBy, claimedAt, expiresAt },
});
const gate = opened('approval', approvalData());

describe('interrupt claims (a lease, first claim wins)', () => {
  it('given a pending interrupt nobody holds, a claim takes it for the default lease', () => {
    given(gate)
      .when(claim('alice'))
      .then([claimed('alice', new Date(Date.parse(NOW) + DEFAULT_CLAIM_LEASE_MS).toISOString())]);
  });

  it('bounds the lease the claimant asks for', () => {
    given(gate)
      .when(claim('alice', { leaseMs: 10 * MAX_CLAIM_LEASE_MS }))
      .then([claimed('alice', new Date(Date.parse(NOW) + MAX_CLAIM_LEASE_MS).toISOString())]);
  });

  it('refuses a second claimant with interrupt_claimed naming the holder and the expiry', () => {
    given(gate, claimed('alice', LATER))
      .when(claim('bob'))
      .thenRefuses('interrupt_claimed', { claimedBy: 'alice', claimExpiresAt: LATER });
  });

  it('lets the holder renew', () => {
    given(gate, claimed('alice', LATER))
      .when(claim('alice', { leaseMs: 1000 }))
      .then([claimed('alice', '2026-11-21T10:00:01.000Z')]);
  });

  it('frees a lapsed claim by time alone: the next claimant wins, after the lapse is told', () => {
    const takeover = given(gate, claimed('alice', LATER)).when(
      claim('bob', { context: ctx('bob', { now: LATER }), leaseMs: 60_000 }),
    );
    expect(takeover.events()).toEqual([
      {
        type: 'interrupt.released',
        data: { releasedBy: 'bob', releasedAt: LATER, claimedBy: 'alice', reason: 'expired' },
      },
      claimed('bob', '2026-11-21T10:06:00.000Z', LATER),
    ]);
    const next = takeover.next() as PendingInterrupt;
    expect(next.claim).toEqual({ claimedBy: 'bob', claimedAt: LATER, expiresAt: '2026-11-21T10:06:00.000Z' });
    expect(liveClaim(next, LATER)?.claimedBy).toBe('bob');
  });

  it('the timer ends a lapsed claim once, with an expired release; a live or ended claim decides nothing', () => {
    const expire = (now: string) => ({
      type: 'ExpireClaim' as const,
      interruptId: 'r1:gate:0',
      context: ctx('system:interrupt-timer', { now }),
    });
    const lapsed = given(gate, claimed('alice', LATER)).when(expire(LATER));
    expect(lapsed.events()).toEqual([
      {
        type: 'interrupt.released',
        data: {
          releasedBy: 'system:interrupt-timer',
          releasedAt: LATER,
          claimedBy: 'alice',
          reason: 'expired',
        },
      },
    ]);
    expect((lapsed.next() as PendingInterrupt).claim).toBeUndefined();
    given(gate, claimed('alice', LATER)).when(expire(NOW)).then([]);
    given(gate).when(expire(LATER)).then([]);
    given(gate, claimed('alice', LATER), ...lapsed.events())
      .when(expire(LATER))
      .then([]);
  });

  it('reads a claim as live only before its expiry', () => {
    const state = given(gate, claimed('alice', LATER)).state as PendingInterrupt;
    expect(liveClaim(state, NOW)?.claimedBy).toBe('alice');
    expect(liveClaim(state, LATER)).toBeUndefined();
  });

  it('lets the holder release, and the claim is gone', () => {
    given(gate, claimed('alice', LATER))
      .when(release('alice'))
      .then([
        {
          type: 'interrupt.released',
          data: { releasedBy: 'alice', releasedAt: NOW, claimedBy: 'alice', reason: 'released' },
        },
      ]);
    const next = given(gate, claimed('alice', LATER)).when(release('alice')).next() as PendingInterrupt;
    expect(next.status).toBe('pending');
    expect(next.claim).toBeUndefined();
  });

  it('refuses a release by someone else while the claim holds', () => {
    given(gate, claimed('alice', LATER))
      .when(release('bob'))
      .thenRefuses('interrupt_claimed', { claimedBy: 'alice' });
  });

  it('decides nothing for a release of an interrupt nobody holds but the lapse the timer has not told', () => {
    given(gate).when(release('bob')).then([]);
    given(gate, claimed('alice', LATER))
      .when(release('bob', LATER))
      .then([
        {
          type: 'interrupt.released',
          data: { releasedBy: 'bob', releasedAt: LATER, claimedBy: 'alice', reason: 'expired' },
        },
      ]);
  });

  it('refuses a claim on a decided interrupt, on another tenant, or on nothing', () => {
    const resolved: InterruptEvent = {
      type: 'interrupt.resolved',
      data: { resumeValue: { action: 'accept' }, resolvedBy: 'alice', resolvedAt: NOW },
    };
    given(gate, resolved).when(claim('bob')).thenRefuses('interrupt_already_resolved');
    given(gate)
      .when(claim('bob', { context: ctx('bob', { tenant: 't2' }) }))
      .thenRefuses('interrupt_not_found');
    given().when(claim('bob')).thenRefuses('interrupt_not_found');
  });

  it('still lets someone else resolve a claimed interrupt (the gateway warns them)', () => {
    const events = given(gate, claimed('alice', LATER))
      .when(resolveWith({ action: 'accept' }, 'bob'))
      .events();
    expect(events.map((e) => e.type)).toContain('interrupt.resolved');
  });
});

describe('approver lists: advisory by default, enforced when the gate asks', () => {
  const enforced = opened('approval', approvalData({ approversList: ['alice'], approverPolicy: 'enforced' }));
  const advisory = opened('approval', approvalData({ approversList: ['alice'] }));

  it('refuses a resolve and a claim from a principal not on an enforced list with forbidden', () => {
    given(enforced)
      .when(resolveWith({ action: 'accept' }, 'mallory'))
      .thenRefuses('forbidden');
    given(enforced).when(claim('mallory')).thenRefuses('forbidden');
  });

  it('accepts a listed approver on an enforced list', () => {
    expect(
      given(enforced)
        .when(resolveWith({ action: 'accept' }, 'alice'))
        .next().status,
    ).toBe('resolved');
    expect(given(enforced).when(claim('alice')).events()).toHaveLength(1);
  });

  it('an enforced gate with no list admits nobody', () => {
    const empty = opened('approval', approvalData({ approverPolicy: 'enforced' }));
    given(empty)
      .when(resolveWith({ action: 'accept' }, 'alice'))
      .thenRefuses('forbidden');
  });

  it('keeps the list advisory without the policy', () => {
    expect(
      given(advisory)
        .when(resolveWith({ action: 'accept' }, 'mallory'))
        .next().status,
    ).toBe('resolved');
  });
});
