import {
  describeWebhookKeyRing,
  generateWebhookSecretKeys,
  isSealedSecret,
  keyRingEncodings,
  loadWebhookSecretKeys,
  needsReseal,
  openWebhookSecret,
  parseWebhookSecretKeys,
  sealWebhookSecret,
  WebhookSecretUnreadable,
} from './secret-box';

const k = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const secret = 'ab'.repeat(32);
const bind = { webhookId: 'wh_1', tenant: 't1' };

function reason(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof WebhookSecretUnreadable) return e.reason;
    throw e;
  }
  return 'opened';
}

describe('webhook secret key ring (OPENWOP_WEBHOOK_SECRET_KEYS)', () => {
  it('parses keyId:base64key entries, the first is current', () => {
    const ring = parseWebhookSecretKeys(` k2:${k(2)} , k1:${k(1)}`, 'X');
    expect(ring.current).toBe('k2');
    expect([...ring.keys.keys()]).toEqual(['k2', 'k1']);
    expect(ring.keys.get('k1')).toEqual(Buffer.alloc(32, 1));
  });

  it.each([
    ['', /no key/],
    [`k1${k(1)}`, /entry 1 must be keyId:base64key/],
    [`k 1:${k(1)}`, /entry 1/],
    [`k1:${Buffer.alloc(16, 1).toString('base64')}`, /exactly 32 bytes/],
    [`k1:${Buffer.alloc(32, 1).toString('base64url')}x`, /exactly 32 bytes/],
    [`k1:${k(1)},k1:${k(2)}`, /appears twice/],
  ])('refuses %j, naming the entry and never the key', (raw, message) => {
    let error: Error | undefined;
    try {
      parseWebhookSecretKeys(raw, 'OPENWOP_WEBHOOK_SECRET_KEYS');
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain(k(1));
  });

  it('generates a ring it parses; describes keys by fingerprint only', () => {
    const ring = parseWebhookSecretKeys(generateWebhookSecretKeys(), 'generated');
    expect(ring.keys.get(ring.current)).toHaveLength(32);
    const two = parseWebhookSecretKeys(`k2:${k(2)},k1:${k(1)}`, 'X');
    const text = describeWebhookKeyRing(two);
    expect(text).toMatch(/^current k2 \(fp [0-9a-f]{8}\); also opens k1 \(fp [0-9a-f]{8}\)$/);
    for (const enc of keyRingEncodings(two)) expect(text).not.toContain(enc);
    expect(keyRingEncodings(two)).toContain(k(1));
  });
});

describe('sealed webhook secrets (AES-256-GCM, v1:<kid>:<nonce>:<ct+tag>)', () => {
  const ring1 = parseWebhookSecretKeys(`k1:${k(1)}`, 'X');

  it('seals to an envelope that is not the secret and opens to it', () => {
    const sealed = sealWebhookSecret(ring1, secret, bind);
    expect(sealed).toMatch(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret);
    expect(isSealedSecret(sealed)).toBe(true);
    expect(openWebhookSecret(ring1, sealed, bind)).toEqual({ secret, keyId: 'k1' });
  });

  it('uses a fresh nonce each time', () => {
    expect(sealWebhookSecret(ring1, secret, bind)).not.toBe(sealWebhookSecret(ring1, secret, bind));
  });

  it('does not open under another key with the same id', () => {
    const sealed = sealWebhookSecret(ring1, secret, bind);
    expect(reason(() => openWebhookSecret(parseWebhookSecretKeys(`k1:${k(9)}`, 'X'), sealed, bind))).toBe(
      'not_authentic',
    );
  });

  it('does not open when the key id is not in the ring, or with no ring', () => {
    const sealed = sealWebhookSecret(ring1, secret, bind);
    expect(reason(() => openWebhookSecret(parseWebhookSecretKeys(`k2:${k(1)}`, 'X'), sealed, bind))).toBe(
      'unknown_key',
    );
    expect(reason(() => openWebhookSecret(undefined, sealed, bind))).toBe('no_key_ring');
  });

  it('detects a tampered ciphertext, tag or nonce', () => {
    const sealed = sealWebhookSecret(ring1, secret, bind);
    const [v, kid, nonce, ct] = sealed.split(':') as [string, string, string, string];
    const flip = (b64: string, at: number) => {
      const buf = Buffer.from(b64, 'base64url');
      buf[at]! ^= 1;
      return buf.toString('base64url');
    };
    expect(reason(() => openWebhookSecret(ring1, [v, kid, nonce, flip(ct, 0)].join(':'), bind))).toBe(
      'not_authentic',
    );
    const ctLen = Buffer.from(ct, 'base64url').length;
    expect(reason(() => openWebhookSecret(ring1, [v, kid, nonce, flip(ct, ctLen - 1)].join(':'), bind))).toBe(
      'not_authentic',
    );
    expect(reason(() => openWebhookSecret(ring1, [v, kid, flip(nonce, 3), ct].join(':'), bind))).toBe(
      'not_authentic',
    );
    expect(reason(() => openWebhookSecret(ring1, [v, kid, nonce].join(':'), bind))).toBe('malformed');
    expect(reason(() => openWebhookSecret(ring1, [v, kid, 'AAAA', ct].join(':'), bind))).toBe('malformed');
    expect(reason(() => openWebhookSecret(ring1, [v, kid, nonce, 'x+y'].join(':'), bind))).toBe('malformed');
  });

  it('binds the envelope to its subscription and tenant (a value swapped onto another row does not open)', () => {
    const sealed = sealWebhookSecret(ring1, secret, bind);
    expect(reason(() => openWebhookSecret(ring1, sealed, { webhookId: 'wh_2', tenant: 't1' }))).toBe(
      'not_authentic',
    );
    expect(reason(() => openWebhookSecret(ring1, sealed, { webhookId: 'wh_1', tenant: 't2' }))).toBe(
      'not_authentic',
    );
    // no ambiguity from concatenation: ("t1x", "wh") is not ("t1", "xwh")
    const a = sealWebhookSecret(ring1, secret, { webhookId: 'xwh', tenant: 't1' });
    expect(reason(() => openWebhookSecret(ring1, a, { webhookId: 'wh', tenant: 't1x' }))).toBe(
      'not_authentic',
    );
  });

  it('reads a plain-text secret of an earlier build as it is, and asks for its reseal', () => {
    expect(openWebhookSecret(undefined, secret, bind)).toEqual({ secret, keyId: null });
    expect(openWebhookSecret(ring1, secret, bind)).toEqual({ secret, keyId: null });
    expect(needsReseal(ring1, secret)).toBe(true);
    expect(needsReseal(ring1, sealWebhookSecret(ring1, secret, bind))).toBe(false);
  });

  it('rotates: a new first key seals, the old one still opens, and its values ask for a reseal', () => {
    const old = sealWebhookSecret(ring1, secret, bind);
    const rotated = parseWebhookSecretKeys(`k2:${k(2)},k1:${k(1)}`, 'X');
    expect(openWebhookSecret(rotated, old, bind)).toEqual({ secret, keyId: 'k1' });
    expect(needsReseal(rotated, old)).toBe(true);
    const resealed = sealWebhookSecret(rotated, openWebhookSecret(rotated, old, bind).secret, bind);
    expect(resealed.startsWith('v1:k2:')).toBe(true);
    expect(needsReseal(rotated, resealed)).toBe(false);
    // once k1 is dropped from the ring, only resealed values open
    const k2only = parseWebhookSecretKeys(`k2:${k(2)}`, 'X');
    expect(openWebhookSecret(k2only, resealed, bind).secret).toBe(secret);
    expect(reason(() => openWebhookSecret(k2only, old, bind))).toBe('unknown_key');
  });
});

describe('loadWebhookSecretKeys: which ring a process uses', () => {
  const files = new Map<string, string>();
  const readOrCreate = (file: string, create: () => string) => {
    if (!files.has(file)) files.set(file, create());
    return files.get(file)!;
  };

  it('takes the variable in any mode', () => {
    const env = { OPENWOP_WEBHOOK_SECRET_KEYS: `k1:${k(1)}` };
    expect(
      loadWebhookSecretKeys(
        { mode: 'distributed', dataDir: undefined, databaseUrl: 'postgres://x' },
        env,
        readOrCreate,
      ).ring?.current,
    ).toBe('k1');
    expect(
      loadWebhookSecretKeys(
        { mode: 'embedded', dataDir: '/d/pgdata', databaseUrl: undefined },
        env,
        readOrCreate,
      ).source,
    ).toBe('env');
  });

  it('distributed without it: none', () => {
    expect(
      loadWebhookSecretKeys(
        { mode: 'distributed', dataDir: '/d/pgdata', databaseUrl: undefined },
        {},
        readOrCreate,
      ),
    ).toMatchObject({
      ring: undefined,
      source: 'none',
    });
  });

  it('embedded without it: one generated file next to the data folder, the same ring on every start', () => {
    const a = loadWebhookSecretKeys(
      { mode: 'embedded', dataDir: '/d/pgdata', databaseUrl: undefined },
      {},
      readOrCreate,
    );
    const b = loadWebhookSecretKeys(
      { mode: 'embedded', dataDir: '/d/pgdata', databaseUrl: undefined },
      {},
      readOrCreate,
    );
    expect(a.source).toBe('file');
    expect(a.from).toBe('/d/webhook-secret-keys');
    expect(b.ring?.keys.get(b.ring.current)).toEqual(a.ring?.keys.get(a.ring.current));
  });

  it('embedded on an external Postgres with no data folder: none (the rows would outlive a process key)', () => {
    expect(
      loadWebhookSecretKeys(
        { mode: 'embedded', dataDir: undefined, databaseUrl: 'postgres://x' },
        {},
        readOrCreate,
      ),
    ).toMatchObject({ ring: undefined, source: 'none' });
  });

  it('embedded in memory: one key for the process, shared by every caller', () => {
    const a = loadWebhookSecretKeys(
      { mode: 'embedded', dataDir: undefined, databaseUrl: undefined },
      {},
      readOrCreate,
    );
    const b = loadWebhookSecretKeys(
      { mode: 'embedded', dataDir: undefined, databaseUrl: undefined },
      {},
      readOrCreate,
    );
    expect(a.source).toBe('process');
    expect(b.ring).toBe(a.ring);
  });
});
