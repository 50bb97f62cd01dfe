import { DomainError } from '@openwop/kernel';
import type { KeyRing } from './key-ring';
import { signToken, verifyToken } from './resolution-token';
import { authorizeTokenUse, type StoredTokenState, type TokenOperation } from './token-use.rules';

const ring: KeyRing = { activeKid: 'k1', keys: { k1: { secret: Buffer.alloc(32, 7) } } };
const NOW = Date.parse('2026-01-01T00:10:00.000Z');
const claims = { runId: 'r', nodeId: 'gate', interruptId: 'r:gate:0', expiresAt: '2026-01-01T00:30:00.000Z' };
const stored: StoredTokenState = { runId: 'r', nodeId: 'gate', interruptId: 'r:gate:0', invalidated: false };
const resolveToken = signToken({ ...claims, intent: 'resolve' }, ring);
const inspectToken = signToken({ ...claims, intent: 'inspect' }, ring);

function codeOf(token: string, state: StoredTokenState | undefined, op: TokenOperation, now = NOW): string {
  try {
    authorizeTokenUse(verifyToken(token, ring, now), state, op);
    return 'ok';
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
}

describe('authorizeTokenUse (the RFC 0093 matrix)', () => {
  it('a resolve token inspects and resolves; an inspect token only inspects', () => {
    expect(codeOf(resolveToken, stored, 'inspect')).toBe('ok');
    expect(codeOf(resolveToken, stored, 'resolve')).toBe('ok');
    expect(codeOf(inspectToken, stored, 'inspect')).toBe('ok');
    expect(codeOf(inspectToken, stored, 'resolve')).toBe('forbidden');
  });

  it('malformed or forged → interrupt_token_invalid (one answer for any token that does not verify; v1 paths say 404); expired → interrupt_expired', () => {
    expect(codeOf('not-a-token', stored, 'resolve')).toBe('interrupt_token_invalid');
    expect(codeOf('tok_' + Buffer.alloc(32, 1).toString('base64url'), stored, 'inspect')).toBe(
      'interrupt_token_invalid',
    );
    const [p] = resolveToken.split('.');
    expect(codeOf(`${p}.${Buffer.alloc(32).toString('base64url')}`, stored, 'resolve')).toBe(
      'interrupt_token_invalid',
    );
    expect(codeOf(resolveToken, stored, 'resolve', Date.parse(claims.expiresAt))).toBe('interrupt_expired');
    expect(codeOf(resolveToken, stored, 'inspect', Date.parse(claims.expiresAt) + 1)).toBe(
      'interrupt_expired',
    );
  });

  it('a token naming no stored interrupt, or another one, is interrupt_not_found', () => {
    expect(codeOf(resolveToken, undefined, 'inspect')).toBe('interrupt_not_found');
    expect(codeOf(resolveToken, { ...stored, interruptId: 'r:gate:1' }, 'resolve')).toBe(
      'interrupt_not_found',
    );
    expect(codeOf(resolveToken, { ...stored, runId: 'other' }, 'resolve')).toBe('interrupt_not_found');
    expect(codeOf(resolveToken, { ...stored, nodeId: 'other' }, 'resolve')).toBe('interrupt_not_found');
  });

  it('an invalidated token is interrupt_already_resolved for both uses; inspect-only still gets 403 on resolve', () => {
    const done = { ...stored, invalidated: true };
    expect(codeOf(resolveToken, done, 'resolve')).toBe('interrupt_already_resolved');
    expect(codeOf(resolveToken, done, 'inspect')).toBe('interrupt_already_resolved');
    expect(codeOf(inspectToken, done, 'resolve')).toBe('forbidden');
  });

  it('refusals carry no token material', () => {
    for (const [token, state, op] of [
      [resolveToken, { ...stored, invalidated: true }, 'resolve'],
      [inspectToken, stored, 'resolve'],
      [resolveToken, undefined, 'inspect'],
    ] as const) {
      try {
        authorizeTokenUse(verifyToken(token, ring, NOW), state, op);
      } catch (e) {
        const text = JSON.stringify({ m: (e as DomainError).message, d: (e as DomainError).details });
        expect(text).not.toContain(token.slice(0, 16));
        expect(text).not.toContain(token.split('.')[1]);
      }
    }
  });
});
