import {
  breakerGate,
  breakerRecord,
  CLOSED_BREAKER,
  DEFAULT_BREAKER_POLICY as P,
  type BreakerState,
} from './circuit-breaker';

function fail(b: BreakerState, now: number) {
  return breakerRecord(b, false, now).next;
}

describe('circuit breaker (webhooks.md §Circuit breaker)', () => {
  it('opens after 4 consecutive failures and skips for the cooldown', () => {
    let b = CLOSED_BREAKER;
    for (let i = 0; i < 3; i++) b = fail(b, 1000 + i);
    expect(b.phase).toBe('closed');
    expect(breakerGate(b, 1010).allow).toBe(true);
    b = fail(b, 2000);
    expect(b.phase).toBe('open');
    expect(breakerGate(b, 2000 + P.cooldownMs - 1)).toEqual(
      expect.objectContaining({ allow: false, retryAt: 2000 + P.cooldownMs }),
    );
  });

  it('a success in between resets the count', () => {
    let b = fail(fail(fail(CLOSED_BREAKER, 1), 2), 3);
    b = breakerRecord(b, true, 4).next;
    b = fail(b, 5);
    expect(b).toEqual(expect.objectContaining({ phase: 'closed', consecutiveFailures: 1 }));
  });

  it('after the cooldown one probe goes out (half-open); its success closes, its failure reopens', () => {
    let b: BreakerState = { ...CLOSED_BREAKER, phase: 'open', consecutiveFailures: 4, since: 0 };
    const gate = breakerGate(b, P.cooldownMs);
    expect(gate).toEqual(expect.objectContaining({ allow: true, probe: true }));
    b = gate.next;
    expect(b.phase).toBe('half-open');
    // A second delivery meanwhile waits for the probe.
    expect(breakerGate(b, P.cooldownMs + 1).allow).toBe(false);
    expect(breakerRecord(b, true, P.cooldownMs + 2).next).toEqual(
      expect.objectContaining({ phase: 'closed', consecutiveFailures: 0 }),
    );
    expect(breakerRecord(b, false, P.cooldownMs + 2).next).toEqual(
      expect.objectContaining({ phase: 'open', since: P.cooldownMs + 2 }),
    );
    // A probe that never reported back stops blocking after its lease.
    expect(breakerGate(b, P.cooldownMs + P.probeLeaseMs).allow).toBe(true);
  });

  it('100 failures within the 7-day window fail the subscription; an older window starts over', () => {
    let b = CLOSED_BREAKER;
    for (let i = 0; i < 99; i++) {
      const v = breakerRecord(b, false, i);
      expect(v.subscriptionFailed).toBe(false);
      b = v.next;
    }
    expect(breakerRecord(b, false, 100).subscriptionFailed).toBe(true);
    const later = breakerRecord(b, false, P.windowMs + 1);
    expect(later.subscriptionFailed).toBe(false);
    expect(later.next.windowFailures).toBe(1);
  });
});
