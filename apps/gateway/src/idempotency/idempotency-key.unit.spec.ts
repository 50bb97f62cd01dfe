import {
  canonicalJson,
  isRetryableStatus,
  isUnrecordedStatus,
  keyDigest,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  idempotencyKeyCapacityBits,
  MIN_IDEMPOTENCY_KEY_BITS,
  parseIdempotencyKey,
  parseIdempotencyKeyV2,
  requestDigest,
  withoutShownOnce,
} from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it('takes a UUID and any visible-ASCII key up to the maximum length', () => {
    expect(parseIdempotencyKey('3f1c2a4e-7b1d-4c55-9d7e-0b7a4f3e2c11')).toEqual({
      kind: 'valid',
      key: '3f1c2a4e-7b1d-4c55-9d7e-0b7a4f3e2c11',
    });
    const longest = 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH);
    expect(parseIdempotencyKey(longest)).toEqual({ kind: 'valid', key: longest });
    expect(parseIdempotencyKey('order:42/retry=1~a.b_c')).toMatchObject({ kind: 'valid' });
  });

  it('reads an absent header as absent', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ kind: 'absent' });
  });

  it.each([
    ['empty', '', 'must not be empty'],
    ['too long', 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1), `at most ${MAX_IDEMPOTENCY_KEY_LENGTH}`],
    ['with a space (two headers joined by Node)', 'a, b', 'visible ASCII'],
    ['with a control character', 'a\tb', 'visible ASCII'],
    ['non-ASCII', 'clé', 'visible ASCII'],
  ])('refuses a key that is %s, naming the header', (_what, raw, message) => {
    const parsed = parseIdempotencyKey(raw);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind !== 'invalid') return;
    expect(parsed.error.path).toBe('/headers/Idempotency-Key');
    expect(parsed.error.message).toContain(message);
  });

  it('refuses a header sent as several values', () => {
    expect(parseIdempotencyKey(['a', 'b'])).toMatchObject({ kind: 'invalid' });
  });
});

describe('parseIdempotencyKeyV2 (v2 idempotency.md: grammar and 128-bit floor)', () => {
  it('takes a canonical UUIDv4, its base64url form, and the longest grammar key', () => {
    for (const key of [
      '3f1c2a4e-7b1d-4c55-9d7e-0b7a4f3e2c11',
      '3F1C2A4E-7B1D-4C55-9D7E-0B7A4F3E2C11',
      'PxwqTnsdTFWdfgt6Tz4sEQ',
      'a'.repeat(64) + '.Z_~-'.repeat(12) + 'kkkk',
    ]) {
      expect(parseIdempotencyKeyV2(key)).toEqual({ kind: 'valid', key });
    }
  });

  it('reads an absent header as absent and a repeated one as invalid', () => {
    expect(parseIdempotencyKeyV2(undefined)).toEqual({ kind: 'absent' });
    expect(parseIdempotencyKeyV2(['PxwqTnsdTFWdfgt6Tz4sEQ', 'PxwqTnsdTFWdfgt6Tz4sEQ'])).toMatchObject({
      kind: 'invalid',
    });
  });

  it.each([
    ['empty', ''],
    ['21 characters', 'PxwqTnsdTFWdfgt6Tz4sE'],
    ['129 characters', 'k'.repeat(129)],
    ['a character v1 allowed (":")', 'order:42-PxwqTnsdTFWdfgt6Tz4sEQ'],
    ['a "/"', 'PxwqTnsdTFWdfgt6Tz4sEQ/1'],
    ['two headers joined by Node', 'PxwqTnsdTFWdfgt6Tz4sEQ, PxwqTnsdTFWdfgt6Tz4sEQ'],
  ])('refuses a key outside the grammar: %s', (_what, key) => {
    expect(parseIdempotencyKeyV2(key)).toMatchObject({
      kind: 'invalid',
      error: {
        path: '/headers/Idempotency-Key',
        message: expect.stringContaining('^[A-Za-z0-9._~-]{22,128}$'),
      },
    });
  });

  it.each([
    ['22 hex digits (88 bits)', '3f1c2a4e7b1d4c559d7e0b'],
    ['31 hex digits', '3f1c2a4e7b1d4c559d7e0b7a4f3e2c1'],
    ['38 decimal digits', '1'.repeat(38)],
  ])('refuses a grammar key under the 128-bit floor: %s', (_what, key) => {
    expect(idempotencyKeyCapacityBits(key)).toBeLessThan(MIN_IDEMPOTENCY_KEY_BITS);
    expect(parseIdempotencyKeyV2(key)).toMatchObject({
      kind: 'invalid',
      error: { message: expect.stringContaining('128 bits') },
    });
  });

  it('puts the floor where each alphabet reaches 128 bits', () => {
    expect(parseIdempotencyKeyV2('3f1c2a4e7b1d4c559d7e0b7a4f3e2c11')).toMatchObject({ kind: 'valid' });
    expect(parseIdempotencyKeyV2('1'.repeat(39))).toMatchObject({ kind: 'valid' });
    expect(parseIdempotencyKeyV2('z'.repeat(22))).toMatchObject({ kind: 'valid' });
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('gives one text for bodies that differ only in key order', () => {
    expect(canonicalJson({ workflowId: 'w', inputs: { x: 1, y: 2 } })).toBe(
      canonicalJson({ inputs: { y: 2, x: 1 }, workflowId: 'w' }),
    );
  });

  it('drops undefined members like JSON.stringify, and tells strings from numbers', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson({ n: 1 })).not.toBe(canonicalJson({ n: '1' }));
    expect(canonicalJson([undefined])).toBe('[null]');
  });
});

describe('requestDigest', () => {
  const base = {
    endpoint: 'POST /v1/runs',
    params: {},
    query: {},
    body: { workflowId: 'w', inputs: { nonce: 'a' } },
  };

  it('is stable across key order and differs for another body', () => {
    expect(requestDigest(base)).toBe(
      requestDigest({ ...base, body: { inputs: { nonce: 'a' }, workflowId: 'w' } }),
    );
    expect(requestDigest(base)).not.toBe(
      requestDigest({ ...base, body: { workflowId: 'w', inputs: { nonce: 'b' } } }),
    );
  });

  it('differs for another path parameter (the same key on two runs is a mismatch)', () => {
    const cancel = { endpoint: 'POST /v1/runs/:runId/cancel', query: {}, body: {} };
    expect(requestDigest({ ...cancel, params: { runId: 'r1' } })).not.toBe(
      requestDigest({ ...cancel, params: { runId: 'r2' } }),
    );
  });

  it('counts a missing body as an empty object', () => {
    const cancel = { endpoint: 'POST /v1/runs/:runId/cancel', params: { runId: 'r1' }, query: {} };
    expect(requestDigest({ ...cancel, body: undefined })).toBe(requestDigest({ ...cancel, body: {} }));
  });
});

describe('keyDigest', () => {
  it('is a sha256 hex digest that never contains the key', () => {
    const digest = keyDigest('customer-4711-order');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain('4711');
    expect(keyDigest('customer-4711-order')).toBe(digest);
  });
});

describe('outcome classes', () => {
  it('treats 429 and 5xx as retryable (recorded, never replayed)', () => {
    for (const status of [429, 500, 502, 503, 504]) expect(isRetryableStatus(status)).toBe(true);
    for (const status of [200, 201, 400, 404, 409, 422]) expect(isRetryableStatus(status)).toBe(false);
  });

  it('leaves no record for a malformed request or an auth failure', () => {
    for (const status of [400, 401, 403]) expect(isUnrecordedStatus(status)).toBe(true);
    for (const status of [404, 409, 422, 503]) expect(isUnrecordedStatus(status)).toBe(false);
  });
});

describe('withoutShownOnce', () => {
  it('drops the fields a route shows once and keeps the rest as it was', () => {
    const body = { webhookId: 'wh_1', secret: 'f'.repeat(64), secretFingerprint: 'a1b2c3d4', durable: false };
    expect(withoutShownOnce(body, ['secret'])).toEqual({
      webhookId: 'wh_1',
      secretFingerprint: 'a1b2c3d4',
      durable: false,
    });
    expect(JSON.stringify(withoutShownOnce(body, ['secret']))).not.toContain('f'.repeat(64));
    expect(body.secret).toBe('f'.repeat(64)); // the first answer still carries it
  });

  it('keeps a body with nothing to drop, and anything that is not an object, unchanged', () => {
    const body = { runId: 'r1' };
    expect(withoutShownOnce(body, [])).toBe(body);
    expect(withoutShownOnce(undefined, ['secret'])).toBeUndefined();
    expect(withoutShownOnce([1, 2], ['secret'])).toEqual([1, 2]);
    expect(withoutShownOnce('text', ['secret'])).toBe('text');
  });
});
