import { DomainError } from '@openwop/kernel';
import { redactToken, tokenRoutingKey } from './token-routing-key.parser';

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
  ])(
    '%s is 404 interrupt_not_found (as any token that does not verify), without echoing the token',
    (_w, token) => {
      expect(code(() => tokenRoutingKey(token))).toBe('interrupt_not_found');
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
