import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { appendTo, EMPTY_HEAD, lineText, recordHash, type ChainHead } from './audit-chain';
import type { AuditFact, AuditLine } from './audit-record';
import {
  auditKeyId,
  auditPublicKeyFrom,
  auditSigningKeyFrom,
  checkAuditHeadSignature,
  generateAuditSigningKey,
  rawPublicKey,
  signAuditHead,
  type AuditSigningKey,
} from './signed-head';
import { loadAuditSigningKey } from './signing-key';
import { verifyAuditExport } from './verify-chain';

const fact = (n: number): AuditFact => ({
  factId: `f${n}`,
  tenant: 't1',
  at: `2026-01-01T00:00:0${n}.000Z`,
  who: 'alice',
  keyId: 'key-a',
  route: 'api',
  action: 'resolve',
  runId: `run-${n}`,
  answerAction: 'accept',
});

function chain(count: number, edit?: (f: AuditFact, n: number) => AuditFact): AuditLine[] {
  const lines: AuditLine[] = [];
  let head: ChainHead = EMPTY_HEAD;
  for (let n = 1; n <= count; n++) {
    const line = appendTo(head, 't1', edit ? edit(fact(n), n) : fact(n));
    lines.push(line);
    head = { seq: line.seq, hash: line.hash };
  }
  return lines;
}

const key: AuditSigningKey = auditSigningKeyFrom(generateAuditSigningKey(), 'test');
const signedAt = '2026-01-01T00:01:00.000Z';
const headOf = (lines: readonly AuditLine[]) =>
  signAuditHead({ tenant: 't1', seq: lines.at(-1)!.seq, hash: lines.at(-1)!.hash, signedAt }, key);
const exportText = (head: unknown, lines: readonly AuditLine[]) =>
  `${[JSON.stringify(head), ...lines.map(lineText)].join('\n')}\n`;
const kinds = (text: string, publicKey = key.publicKey) =>
  verifyAuditExport(text, { publicKey }).findings.map((f) => f.kind);

describe('signed audit heads', () => {
  it('signs a head that verifies under the public key, in any of its published forms', () => {
    const signed = headOf(chain(3));
    expect(signed).toMatchObject({ type: 'audit-head', alg: 'Ed25519', kid: auditKeyId(key.publicKey) });
    expect(checkAuditHeadSignature(signed, key.publicKey)).toEqual({ ok: true });
    const raw = rawPublicKey(key.publicKey);
    expect(Buffer.from(raw, 'base64url')).toHaveLength(32);
    for (const form of [
      raw,
      Buffer.from(raw, 'base64url').toString('base64'),
      key.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ]) {
      expect(checkAuditHeadSignature(signed, auditPublicKeyFrom(form))).toEqual({ ok: true });
    }
  });

  it('refuses an edited head, another key, and a head whose signature was swapped', () => {
    const signed = headOf(chain(3));
    expect(checkAuditHeadSignature({ ...signed, head: { ...signed.head, seq: 2 } }, key.publicKey).ok).toBe(
      false,
    );
    expect(
      checkAuditHeadSignature(
        { ...signed, head: { ...signed.head, signedAt: '2027-01-01T00:00:00.000Z' } },
        key.publicKey,
      ).ok,
    ).toBe(false);
    const other = auditSigningKeyFrom(generateAuditSigningKey(), 'other');
    expect(checkAuditHeadSignature(signed, other.publicKey)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not by the given key'),
    });
    expect(checkAuditHeadSignature({ ...signed, kid: other.kid }, other.publicKey).ok).toBe(false);
  });

  it('reads the key as PEM or as a base64 seed, the same key either way, and refuses another kind of key', () => {
    const seed = randomBytes(32);
    const fromSeed = auditSigningKeyFrom(seed.toString('base64'), 'env');
    const pem = fromSeed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(auditSigningKeyFrom(pem, 'env').kid).toBe(fromSeed.kid);
    expect(auditSigningKeyFrom(seed.toString('base64url'), 'env').kid).toBe(fromSeed.kid);
    expect(() => auditSigningKeyFrom('short', 'OPENWOP_AUDIT_SIGNING_KEY')).toThrow(
      /OPENWOP_AUDIT_SIGNING_KEY: not an Ed25519 private key/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(() => auditSigningKeyFrom(rsa, 'file')).toThrow(/not Ed25519/);
    expect(() => auditPublicKeyFrom('AAAA')).toThrow(/not an Ed25519 public key/);
  });

  it('chooses the key: the variable, else the embedded key file, else none in distributed mode', () => {
    const seed = randomBytes(32).toString('base64');
    const files: Record<string, string> = {};
    const readOrCreate = (file: string, create: () => string) => (files[file] ??= create());
    const embedded = { mode: 'embedded' as const, dataDir: '/data/pgdata', databaseUrl: undefined };
    expect(loadAuditSigningKey(embedded, { OPENWOP_AUDIT_SIGNING_KEY: seed }, readOrCreate)).toMatchObject({
      source: 'env',
    });
    const first = loadAuditSigningKey(embedded, {}, readOrCreate);
    expect(first).toMatchObject({ source: 'file', from: '/data/audit-signing-key' });
    expect(loadAuditSigningKey(embedded, {}, readOrCreate).key!.kid).toBe(first.key!.kid);
    expect(
      loadAuditSigningKey(
        { mode: 'distributed', dataDir: '/data/pgdata', databaseUrl: 'postgres://x' },
        {},
        readOrCreate,
      ),
    ).toMatchObject({ source: 'none', key: undefined });
    expect(
      loadAuditSigningKey({ ...embedded, dataDir: undefined, databaseUrl: 'postgres://x' }, {}, readOrCreate),
    ).toMatchObject({ source: 'none' });
    expect(loadAuditSigningKey({ ...embedded, dataDir: undefined }, {}, readOrCreate)).toMatchObject({
      source: 'process',
    });
  });
});

describe('verifyAuditExport with a signed head', () => {
  it('passes an untouched export and says the head verified', () => {
    const lines = chain(4);
    const result = verifyAuditExport(exportText(headOf(lines), lines), { publicKey: key.publicKey });
    expect(result).toMatchObject({
      ok: true,
      records: 4,
      head: { seq: 4, hash: lines[3]!.hash, tenant: 't1', verified: true, kid: key.kid },
    });
  });

  it('fails an export edited and re-hashed throughout, which the chain alone accepts', () => {
    const lines = chain(4);
    const head = headOf(lines);
    const rewritten = chain(4, (f, n) => (n === 2 ? { ...f, who: 'mallory' } : f));
    expect(rewritten[1]!.hash).toBe(recordHash(2, rewritten[0]!.hash, rewritten[1]!.record));
    expect(verifyAuditExport(exportText(head, rewritten)).ok).toBe(true); // no key: the chain holds
    expect(kinds(exportText(head, rewritten))).toEqual(['head-mismatch']);
  });

  it('names a missing head, a forged one, a cut before the head, and a head of another key', () => {
    const lines = chain(4);
    const head = headOf(lines);
    expect(kinds(`${lines.map(lineText).join('\n')}\n`)).toEqual(['unsigned']);
    expect(
      kinds(exportText({ ...head, head: { ...head.head, hash: lines[2]!.hash, seq: 3 } }, lines)),
    ).toEqual(['bad-signature']);
    expect(kinds(exportText(head, lines.slice(0, 3)))).toEqual(['head-missing']);
    const other = auditSigningKeyFrom(generateAuditSigningKey(), 'other');
    expect(kinds(exportText(head, lines), other.publicKey)).toEqual(['bad-signature']);
    expect(kinds(exportText(head, lines) + JSON.stringify(head))).toEqual(['malformed']);
  });

  it('reads a head without a key as unchecked, and covers only up to its seq', () => {
    const lines = chain(5);
    const head = headOf(lines.slice(0, 3));
    expect(verifyAuditExport(exportText(head, lines))).toMatchObject({
      ok: true,
      head: { seq: 3, verified: false },
    });
    expect(verifyAuditExport(exportText(head, lines), { publicKey: key.publicKey })).toMatchObject({
      ok: true,
      lastSeq: 5,
      head: { seq: 3, verified: true },
    });
  });

  it('an empty chain signed at seq 0 verifies with no records', () => {
    const head = signAuditHead({ tenant: 't1', seq: 0, hash: '0'.repeat(64), signedAt }, key);
    expect(verifyAuditExport(`${JSON.stringify(head)}\n`, { publicKey: key.publicKey })).toMatchObject({
      ok: true,
      records: 0,
      head: { verified: true },
    });
  });
});
