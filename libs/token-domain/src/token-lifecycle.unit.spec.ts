import type { RunEventDoc } from '@openwop/contracts';
import type { KeyRing } from './key-ring';
import { verifyToken } from './resolution-token';
import { tokenChangesFor, type MintedTokens } from './token-lifecycle';

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
    ).toEqual([{ type: 'invalidate-interrupt', runId: 'r', interruptId: 'r:gate:0', at: '2026-01-01T00:00:05.000Z' }]);
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
