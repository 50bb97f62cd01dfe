import { createHmac } from 'node:crypto';
import { REDACTED, redactSecrets, redactValue, registerSecret } from './secret-redaction';

/** A resolution token as libs/token-domain signs it: base64url(canonical payload).base64url(HMAC-SHA256). */
function token(intent: 'resolve' | 'inspect', runId = 'run-1'): string {
  const payload = Buffer.from(
    JSON.stringify({
      v: 1,
      alg: 'HS256',
      kid: 'k1',
      runId,
      nodeId: 'gate',
      interruptId: `${runId}:gate:0`,
      expiresAt: '2026-01-01T00:30:00.000Z',
      intent,
    }),
  ).toString('base64url');
  return `${payload}.${createHmac('sha256', 'secret-key').update(payload).digest('base64url')}`;
}

const RES = token('resolve');
const INS = token('inspect');
const mac = RES.split('.')[1]!;

function expectClean(text: string, ...secrets: string[]): void {
  for (const s of secrets) expect(text).not.toContain(s);
}

describe('redactSecrets', () => {
  it('cuts the token of a callback URL path, absolute or relative, with or without a query', () => {
    for (const [input, output] of [
      [`POST /v1/interrupts/${RES} failed`, `POST /v1/interrupts/${REDACTED} failed`],
      [`https://wop.example/v1/interrupts/${RES}?x=1`, `https://wop.example/v1/interrupts/${REDACTED}?x=1`],
      [`"callbackUrl":"http://h/v1/interrupts/${INS}"`, `"callbackUrl":"http://h/v1/interrupts/${REDACTED}"`],
      ['/v1/interrupts/not-even-a-token', `/v1/interrupts/${REDACTED}`],
      [`GET /v1/interrupts/${encodeURIComponent(RES + '=')}`, `GET /v1/interrupts/${REDACTED}`],
    ] as const) {
      expect(redactSecrets(input)).toBe(output);
    }
  });

  it('keeps what is not a secret: the list route, a route template, ordinary ids and text', () => {
    for (const text of [
      'GET /v1/interrupts?kind=approval 200',
      'POST /v1/interrupts/:token',
      'run 3f2a-b1 waiting at gate (interrupt run-1:gate:0)',
      'token.resolve with token eyJ2Ijox… naming "run-1:gate:0": ok',
      'dev API key (every scope, tenant "default") written to /x/.infra/embedded/dev-api-key',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('cuts a resolution token anywhere, and its payload alone', () => {
    const out = redactSecrets(`verify ${RES} and ${INS}; payload ${RES.split('.')[0]}; json {"t":"${RES}"}`);
    expectClean(out, RES, INS, mac, RES.slice(0, 24));
    expect(out).toBe(`verify ${REDACTED} and ${REDACTED}; payload ${REDACTED}; json {"t":"${REDACTED}"}`);
  });

  it('cuts bearer and basic credentials, authorization-like headers and fields, dev keys and query credentials', () => {
    const key = 'test_t1_' + 'a'.repeat(24);
    const cases = [
      `authorization: Bearer ${key}`,
      `Authorization=Basic dXNlcjpwYXNz`,
      `{"authorization":"Bearer ${key}","x-api-key":"${key}"}`,
      `headers { 'x-api-key': '${key}' }`,
      `apiKey=${key}&other=1`,
      `password: hunter2hunter2`,
      'dev key wop_dev_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
      `GET /callback?token=${key}&a=1`,
    ];
    for (const text of cases) {
      const out = redactSecrets(text);
      expectClean(out, key, 'dXNlcjpwYXNz', 'hunter2hunter2', 'AbCdEfGhIjKlMnOpQrStUvWxYz012345');
      expect(out).toContain(REDACTED);
    }
    expect(redactSecrets(`Bearer ${key}`)).toBe(`Bearer ${REDACTED}`);
    expect(redactSecrets('a=1&other=2')).toBe('a=1&other=2');
  });

  it('cuts registered literal secrets whatever their shape; ignores short ones', () => {
    registerSecret('Zq9-custom-key-of-any-shape', 'short');
    expect(redactSecrets('key Zq9-custom-key-of-any-shape used twice: Zq9-custom-key-of-any-shape')).toBe(
      `key ${REDACTED} used twice: ${REDACTED}`,
    );
    expect(redactSecrets('a short word')).toBe('a short word');
  });
});

describe('redactValue', () => {
  it('redacts strings deep inside objects and arrays, and fields named like credentials whole', () => {
    const value = {
      msg: `resolve via http://h/v1/interrupts/${RES}`,
      headers: { authorization: 'anything at all', cookie: 'sid=1', accept: 'application/json' },
      interrupt: {
        interruptToken: RES,
        inspectToken: INS,
        resolve_token: RES,
        tokenExpiresAt: '2026-01-01T00:30:00.000Z',
        callbackUrl: 'http://h/x',
      },
      list: [RES, 1, null, true],
    };
    const out = redactValue(value);
    expectClean(JSON.stringify(out), RES, INS, 'anything at all', 'sid=1', 'http://h/x');
    expect(out).toEqual({
      msg: `resolve via http://h/v1/interrupts/${REDACTED}`,
      headers: { authorization: REDACTED, cookie: REDACTED, accept: 'application/json' },
      interrupt: {
        interruptToken: REDACTED,
        inspectToken: REDACTED,
        resolve_token: REDACTED,
        tokenExpiresAt: '2026-01-01T00:30:00.000Z',
        callbackUrl: REDACTED,
      },
      list: [REDACTED, 1, null, true],
    });
    expect(value.interrupt.interruptToken).toBe(RES);
  });

  it('redacts an error message and stack; survives cycles and depth', () => {
    const error = new Error(`POST /v1/interrupts/${RES} failed`);
    const out = redactValue(error) as { message: string; stack: string };
    expect(out.message).toBe(`POST /v1/interrupts/${REDACTED} failed`);
    expectClean(out.stack, RES);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toEqual({ a: 1, self: '[cycle]' });
    let deep: unknown = RES;
    for (let i = 0; i < 50; i++) deep = { d: deep };
    expectClean(JSON.stringify(redactValue(deep)), RES);
  });
});
