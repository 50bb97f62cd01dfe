import type { RunEventDoc } from '@openwop/contracts';
import type { KeyRing } from './key-ring';
import { verifyToken } from './resolution-token';
import { tokenChangesFor, tokenStateOf, type MintedTokens } from './token-lifecycle';

const ring: KeyRing = { activeKid: 'k1', keys: { k1: { secret: Buffer.alloc(32, 3) } } };
const settings = { ring, defaultTtlMs: 30 * 60_000 };

function ev(type: RunEventDoc['type'], payload: unknown, sequence = 0, nodeId?: string): RunEventDoc {
  return {
    eventId: `r:${sequence}`,
    runId: 'r',
    type,
    payload,
    sequence,
    timestamp: '2026-01-01T00:00:05.000Z',
    ...(nodeId ? { nodeId } : {}),
  };
}

const requested = ev(
  'interrupt.requested',
  {
    nodeId: 'gate',
    interruptId: 'r:gate:0',
    kind: 'approval',
    key: 'r:gate:0',
    data: { title: 't' },
    requestedAt: '2026-01-01T00:00:00.000Z',
    timeoutMs: 60_000,
  },
  3,
  'gate',
);

describe('tokenChangesFor', () => {
  it('run.started records the owner tenant', () => {
    expect(tokenChangesFor(ev('run.started', { owner: { tenant: 't1', principal: 'p' } }), settings)).toEqual(
      [{ type: 'run-owner', runId: 'r', tenant: 't1' }],
    );
    expect(tokenChangesFor(ev('run.started', {}), settings)).toEqual([]);
  });

  it('interrupt.requested mints a resolve and an inspect-only token, expiring at min(ttl, timeoutMs)', () => {
    const [change] = tokenChangesFor(requested, settings);
    expect(change?.type).toBe('mint');
    const tokens = (change as { tokens: MintedTokens }).tokens;
    expect(tokens).toMatchObject({
      interruptId: 'r:gate:0',
      runId: 'r',
      nodeId: 'gate',
      kind: 'approval',
      key: 'r:gate:0',
      data: { title: 't' },
      timeoutMs: 60_000,
      requestedAt: '2026-01-01T00:00:00.000Z',
      kid: 'k1',
      expiresAt: '2026-01-01T00:01:00.000Z',
    });
    const now = Date.parse('2026-01-01T00:00:30.000Z');
    expect(verifyToken(tokens.resolveToken, ring, now)).toMatchObject({
      ok: true,
      payload: { intent: 'resolve', interruptId: 'r:gate:0' },
    });
    expect(verifyToken(tokens.inspectToken, ring, now)).toMatchObject({
      ok: true,
      payload: { intent: 'inspect' },
    });
    expect(tokens.resolveToken).not.toBe(tokens.inspectToken);
  });

  it('is deterministic: the same event mints the same tokens (a rebuild changes nothing)', () => {
    expect(tokenChangesFor(requested, settings)).toEqual(
      tokenChangesFor(structuredClone(requested), settings),
    );
  });

  it('invalidates one interrupt on interrupt.resolved and the whole run when it ends', () => {
    expect(
      tokenChangesFor(ev('interrupt.resolved', { interruptId: 'r:gate:0', nodeId: 'gate' }), settings),
    ).toEqual([
      { type: 'invalidate-interrupt', runId: 'r', interruptId: 'r:gate:0', at: '2026-01-01T00:00:05.000Z' },
    ]);
    for (const type of ['run.completed', 'run.failed', 'run.cancelled'] as const) {
      expect(tokenChangesFor(ev(type, {}), settings)).toEqual([
        { type: 'invalidate-run', runId: 'r', at: '2026-01-01T00:00:05.000Z' },
      ]);
    }
    expect(tokenChangesFor(ev('node.started', { nodeId: 'x' }), settings)).toEqual([]);
  });

  it('refuses an interrupt.requested without identity', () => {
    expect(() => tokenChangesFor(ev('interrupt.requested', { kind: 'approval' }), settings)).toThrow(
      /interruptId/,
    );
  });
});

describe("tokenStateOf (tokens minted on demand from the run's events)", () => {
  const started = ev('run.started', { owner: { tenant: 't1', principal: 'p' } }, 0);
  const other = ev(
    'interrupt.requested',
    {
      nodeId: 'ask',
      interruptId: 'r:ask:0',
      kind: 'clarification',
      key: 'r:ask:0',
      data: {},
      requestedAt: '2026-01-01T00:00:00.000Z',
    },
    1,
    'ask',
  );
  const resolvedOther = {
    ...ev('interrupt.resolved', { interruptId: 'r:ask:0' }, 2),
    timestamp: '2026-01-01T00:00:02.000Z',
  };
  const resolved = {
    ...ev('interrupt.resolved', { interruptId: 'r:gate:0' }, 4),
    timestamp: '2026-01-01T00:00:07.000Z',
  };
  const completed = { ...ev('run.completed', {}, 5), timestamp: '2026-01-01T00:00:09.000Z' };

  it('a pending interrupt: the tokens its interrupt.requested mints, the run owner, not invalidated', () => {
    const [mint] = tokenChangesFor(requested, settings);
    expect(tokenStateOf([started, other, resolvedOther, requested], 'r:gate:0', settings)).toEqual({
      tokens: (mint as { tokens: MintedTokens }).tokens,
      tenant: 't1',
      invalidatedAt: undefined,
    });
  });

  it("the previous release's tokens: a re-mint gives the very strings the run-event consumer stored", () => {
    // Minted by the release before the revision (its token service's consumer, from this event and key).
    const state = tokenStateOf([started, requested], 'r:gate:0', settings)!;
    expect(state.tokens.resolveToken).toBe(
      'eyJ2IjoxLCJhbGciOiJIUzI1NiIsImtpZCI6ImsxIiwicnVuSWQiOiJyIiwibm9kZUlkIjoiZ2F0ZSIsImludGVycnVwdElkIjoicjpnYXRlOjAiLCJleHBpcmVzQXQiOiIyMDI2LTAxLTAxVDAwOjAxOjAwLjAwMFoiLCJpbnRlbnQiOiJyZXNvbHZlIn0.rp4O6BvnlOpObIsxk9qGZ6BW9gMAqT6aYdCdY7Sl_g8',
    );
    expect(state.tokens.inspectToken).toBe(
      'eyJ2IjoxLCJhbGciOiJIUzI1NiIsImtpZCI6ImsxIiwicnVuSWQiOiJyIiwibm9kZUlkIjoiZ2F0ZSIsImludGVycnVwdElkIjoicjpnYXRlOjAiLCJleHBpcmVzQXQiOiIyMDI2LTAxLTAxVDAwOjAxOjAwLjAwMFoiLCJpbnRlbnQiOiJpbnNwZWN0In0.GcgI-eK2lAuctIEzffxhPcd40ZGheUpuYCBau-zH_TE',
    );
  });

  it("invalidated by the interrupt's own interrupt.resolved, or by the run's end, whichever came first", () => {
    expect(tokenStateOf([started, requested, resolved, completed], 'r:gate:0', settings)?.invalidatedAt).toBe(
      '2026-01-01T00:00:07.000Z',
    );
    for (const type of ['run.completed', 'run.failed', 'run.cancelled'] as const) {
      const end = { ...ev(type, {}, 4), timestamp: '2026-01-01T00:00:08.000Z' };
      expect(tokenStateOf([started, requested, end], 'r:gate:0', settings)?.invalidatedAt).toBe(
        end.timestamp,
      );
    }
  });

  it("another interrupt's resolve does not invalidate; an end before the request does not either", () => {
    expect(
      tokenStateOf([started, other, requested, resolvedOther], 'r:gate:0', settings)?.invalidatedAt,
    ).toBeUndefined();
    expect(tokenStateOf([completed, requested], 'r:gate:0', settings)?.invalidatedAt).toBeUndefined();
  });

  it('an interrupt never requested has no tokens; no run.started leaves the tenant unknown', () => {
    expect(tokenStateOf([started, other, completed], 'r:gate:0', settings)).toBeUndefined();
    expect(tokenStateOf([], 'r:gate:0', settings)).toBeUndefined();
    expect(tokenStateOf([requested], 'r:gate:0', settings)?.tenant).toBeUndefined();
  });

  it('signs with the active key: after a rotation the re-mint is a new token, the old one still verifies', () => {
    const before = tokenStateOf([requested], 'r:gate:0', settings)!.tokens;
    const rotated: KeyRing = { activeKid: 'k2', keys: { ...ring.keys, k2: { secret: Buffer.alloc(32, 4) } } };
    const after = tokenStateOf([requested], 'r:gate:0', {
      ring: rotated,
      defaultTtlMs: settings.defaultTtlMs,
    })!.tokens;
    expect(after.kid).toBe('k2');
    expect(after.expiresAt).toBe(before.expiresAt);
    const now = Date.parse('2026-01-01T00:00:30.000Z');
    expect(verifyToken(before.resolveToken, rotated, now)).toMatchObject({
      ok: true,
      payload: { kid: 'k1' },
    });
    expect(verifyToken(after.resolveToken, rotated, now)).toMatchObject({ ok: true, payload: { kid: 'k2' } });
  });
});
