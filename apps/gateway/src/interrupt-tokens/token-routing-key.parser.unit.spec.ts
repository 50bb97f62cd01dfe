import { DomainError } from '@openwop/kernel';
import { redactToken, tokenRoutingKey, unverifiedClaims } from './token-routing-key.parser';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const mac = Buffer.alloc(32).toString('base64url');

function code(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e instanceof DomainError ? e.code : 'threw';
  }
}

describe('tokenRoutingKey (unverified, routing only)', () => {
  it("reads the payload's runId", () => {
    expect(tokenRoutingKey(`${b64({ v: 1, runId: 'run-7', nodeId: 'n' })}.${mac}`)).toBe('run-7');
  });

  it("reads an ow2 token's payload, the last segment but one, whatever dots its kid holds", () => {
    const claims = { runId: 'run-8', nodeId: 'n', interruptId: 'i', expiresAt: 'x', intent: 'resolve' };
    expect(tokenRoutingKey(`ow2.hs256.k1.${b64(claims)}.${mac}`)).toBe('run-8');
    expect(unverifiedClaims(`ow2.hs256.k.2.3.${b64(claims)}.${mac}`)).toEqual(claims);
  });

  it.each([
    ['no dot', 'abc'],
    ['two dots', `${b64({ runId: 'r' })}.${mac}.x`],
    ['an empty part', `${b64({ runId: 'r' })}.`],
    ['non-base64url characters', `${b64({ runId: 'r' })}=.${mac}`],
    ['a payload that is not JSON', `${Buffer.from('nope').toString('base64url')}.${mac}`],
    ['a payload without runId', `${b64({ nodeId: 'n' })}.${mac}`],
    ['a numeric runId', `${b64({ runId: 4 })}.${mac}`],
    ['null', `${b64(null)}.${mac}`],
    ['too long', `${'a'.repeat(5000)}.${mac}`],
    ['an opaque tok_ string', `tok_${Buffer.alloc(32, 9).toString('base64url')}`],
    ['an ow2 token without a kid', `ow2.hs256.${b64({ runId: 'r' })}.${mac}`],
    ['an ow2 token with an empty segment', `ow2.hs256..${b64({ runId: 'r' })}.${mac}`],
    ['an ow2 prefix alone', 'ow2.'],
  ])(
    '%s is interrupt_token_invalid (as any token that does not verify; 404 on /v1/), without echoing the token',
    (_w, token) => {
      expect(code(() => tokenRoutingKey(token))).toBe('interrupt_token_invalid');
      try {
        tokenRoutingKey(token);
      } catch (e) {
        expect(JSON.stringify({ m: (e as Error).message, d: (e as DomainError).details })).not.toContain(
          token,
        );
      }
    },
  );

  it('redactToken keeps 8 characters', () => {
    expect(redactToken('abcdefghijklmnop')).toBe('abcdefgh…');
  });
});
