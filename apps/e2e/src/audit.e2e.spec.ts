import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  auditSigningKeyFrom,
  checkAuditHeadSignature,
  generateAuditSigningKey,
  rawPublicKey,
  recordHash,
  type SignedAuditHead,
} from '@openwop/audit-chain';
import { OpenWopClient } from '@openwop/sdk';
import { testTokenKeysJson, waitFor } from '@openwop/testing';
import { killLeftovers, spawnWop } from './cli-process';
import { refusal, waitStatus } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// The audit log (ADR 0032), both modes: decisions through the API, a signed link, the durable
// timer, a cancel and a bulk cancel each land in the tenant's hash chain with who, which key and
// which route; the NDJSON export verifies with the built `wop audit verify`, and an edited, a
// removed and a reordered record each fail it with the right finding. Another tenant sees none of
// it, and a key without `audit:read` is refused.

const KID = 'e2e-audit-k1';
/** The host's audit signing key (a base64 Ed25519 seed) and the public key the test expects it to publish. */
const AUDIT_SEED = randomBytes(32).toString('base64');
const AUDIT_KEY = auditSigningKeyFrom(AUDIT_SEED, 'test');
const ALL = [
  'manifest:read',
  'manifest:write',
  'runs:create',
  'runs:read',
  'runs:cancel',
  'approvals:respond',
];
const KEYS = {
  t1: 'audit_t1_' + 'a'.repeat(24),
  t2: 'audit_t2_' + 'b'.repeat(24),
  blind: 'audit_bl_' + 'c'.repeat(24),
};
const API_KEYS = JSON.stringify([
  { key: KEYS.t1, scopes: [...ALL, 'audit:read'], tenant: 't1', id: 'key-t1', principal: 'alice' },
  { key: KEYS.t2, scopes: [...ALL, 'audit:read'], tenant: 't2', id: 'key-t2', principal: 'bob' },
  { key: KEYS.blind, scopes: ALL, tenant: 't1', id: 'key-blind' },
]);

interface Line {
  tenant: string;
  seq: number;
  at: string;
  record: Record<string, unknown> & {
    runId: string;
    route: string;
    action: string;
    who: string;
    keyId?: string;
  };
  prev_hash: string;
  hash: string;
}

function workflow(id: string, timeoutMs: number) {
  return {
    id,
    name: id,
    version: '1.0.0',
    nodes: [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        config: { title: 'ship it?', actions: ['accept', 'reject'], timeoutMs },
      },
      { id: 'after', typeId: 'core.noop', config: {} },
    ],
    edges: [{ id: 'e1', sourceNodeId: 'gate', targetNodeId: 'after' }],
    triggers: [],
    variables: [],
    metadata: {},
    settings: {},
  };
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('the audit log end to end, %s mode', (mode) => {
  const gate = `audit-${mode}-gate`;
  const quick = `audit-${mode}-quick`;
  const dir = mkdtempSync(join(tmpdir(), `audit-e2e-${mode}-`));
  let hut: HostUnderTest;
  let base: string;
  let t1: OpenWopClient;
  let t2: OpenWopClient;
  const runs: Record<'api' | 'link' | 'timeout' | 'cancel' | 'bulk' | 'other', string> = {
    api: '',
    link: '',
    timeout: '',
    cancel: '',
    bulk: '',
    other: '',
  };

  beforeAll(async () => {
    hut = await MODES[mode]({
      WOP_API_KEYS: API_KEYS,
      WOP_TOKEN_KEYS: testTokenKeysJson(KID),
      OPENWOP_AUDIT_SIGNING_KEY: AUDIT_SEED,
    });
    base = hut.host.gateways[0]!;
    t1 = new OpenWopClient({ baseUrl: base, apiKey: KEYS.t1 });
    t2 = new OpenWopClient({ baseUrl: base, apiKey: KEYS.t2 });
    await t1.call('POST', '/v1/workflows', workflow(gate, 600_000));
    await t1.call('POST', '/v1/workflows', workflow(quick, 1_000));
    await t2.call('POST', '/v1/workflows', workflow(gate, 600_000));
  });
  afterAll(async () => {
    await killLeftovers();
    await hut?.stop();
  });

  /** The tenant's export (NDJSON text) through the API. */
  async function exportText(
    key: string,
    query = '',
  ): Promise<{ status: number; type: string | null; text: string }> {
    const res = await fetch(`${base}/v1/audit${query}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  }
  const linesOf = (text: string): Line[] =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);

  async function waiting(
    client: OpenWopClient,
    workflowId: string,
  ): Promise<{ runId: string; callbackUrl: string }> {
    const { runId } = await client.createRun({ workflowId });
    const s = await waitFor(
      async () => {
        const snap = await client.getRun(runId);
        const i = snap.interrupt as { callbackUrl?: string } | undefined;
        return snap.status === 'waiting-approval' && i?.callbackUrl
          ? { runId, callbackUrl: i.callbackUrl }
          : undefined;
      },
      { timeoutMs: 20_000, what: `run ${runId} waiting with a signed link` },
    );
    return s;
  }

  it('records decisions through the API, a signed link, the timer, a cancel and a bulk cancel with who, key and route', async () => {
    const api = await waiting(t1, gate);
    runs.api = api.runId;
    await t1.call('POST', `/v1/runs/${api.runId}/interrupts/gate`, {
      resumeValue: { action: 'accept', feedback: 'secret reasons' },
    });

    const link = await waiting(t1, gate);
    runs.link = link.runId;
    const res = await fetch(link.callbackUrl.replace(/^https?:\/\/[^/]+/, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resumeValue: { action: 'reject' } }),
    });
    expect(res.status).toBe(200);

    runs.timeout = (await t1.createRun({ workflowId: quick })).runId;
    runs.cancel = (await waiting(t1, gate)).runId;
    await t1.call('POST', `/v1/runs/${runs.cancel}/cancel`, { reason: 'changed my mind' });
    runs.bulk = (await waiting(t1, gate)).runId;
    const bulk = await t1.call<{ results: { ok: boolean }[] }>('POST', '/v1/runs:bulk-cancel', {
      runIds: [runs.bulk],
      reason: 'sweep',
    });
    expect(bulk.results).toEqual([expect.objectContaining({ ok: true })]);

    const other = await waiting(t2, gate);
    runs.other = other.runId;
    await t2.call('POST', `/v1/runs/${other.runId}/interrupts/gate`, { resumeValue: { action: 'accept' } });

    await waitStatus(t1, api.runId, 'completed', 20_000);
    const mine = await waitFor(
      async () => {
        const got = linesOf((await exportText(KEYS.t1)).text);
        const seen = new Set(got.map((l) => l.record.runId));
        return ['api', 'link', 'timeout', 'cancel', 'bulk'].every((k) =>
          seen.has(runs[k as keyof typeof runs]),
        )
          ? got
          : undefined;
      },
      { timeoutMs: 30_000, what: 'every decision of tenant t1 in its audit log' },
    );
    const of = (runId: string) => mine.filter((l) => l.record.runId === runId).map((l) => l.record);

    expect(of(runs.api)).toEqual([
      expect.objectContaining({
        who: 'alice',
        keyId: 'key-t1',
        route: 'api',
        action: 'resolve',
        outcome: 'resolved',
        answerAction: 'accept',
        kind: 'approval',
        nodeId: 'gate',
      }),
    ]);
    expect(of(runs.api)[0]!.answerDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(mine)).not.toContain('secret reasons');
    expect(JSON.stringify(mine)).not.toContain(KEYS.t1);
    expect(of(runs.link)).toEqual([
      expect.objectContaining({
        who: `token:${KID}`,
        keyId: `token:${KID}`,
        route: 'token-link',
        action: 'resolve',
        answerAction: 'reject',
      }),
    ]);
    expect(of(runs.timeout)).toEqual([
      expect.objectContaining({
        who: 'system:interrupt-timer',
        route: 'timeout',
        action: 'expire',
        outcome: 'timeout',
      }),
    ]);
    expect(of(runs.timeout)[0]).not.toHaveProperty('keyId');
    expect(of(runs.cancel)).toEqual([
      expect.objectContaining({
        who: 'alice',
        keyId: 'key-t1',
        route: 'cancel',
        action: 'cancel',
        reason: 'changed my mind',
        interrupts: [expect.stringContaining(runs.cancel)],
      }),
    ]);
    expect(of(runs.bulk)).toEqual([
      expect.objectContaining({
        who: 'alice',
        keyId: 'key-t1',
        route: 'bulk',
        action: 'cancel',
        reason: 'sweep',
      }),
    ]);

    // One chain: gapless from 1, in order, every line of tenant t1; none of t2's decisions.
    expect(mine.map((l) => l.seq)).toEqual(mine.map((_, i) => i + 1));
    expect(new Set(mine.map((l) => l.tenant))).toEqual(new Set(['t1']));
    expect(mine.some((l) => l.record.runId === runs.other)).toBe(false);
  });

  it('serves NDJSON by keyset and scoped to the tenant; a key without audit:read is refused', async () => {
    const full = await exportText(KEYS.t1);
    expect(full).toMatchObject({ status: 200, type: expect.stringMatching(/^application\/x-ndjson/) });
    const all = linesOf(full.text);
    expect(linesOf((await exportText(KEYS.t1, '?after=2&limit=2')).text).map((l) => l.seq)).toEqual([3, 4]);
    expect(
      linesOf((await exportText(KEYS.t1, `?from=${encodeURIComponent(all[1]!.at)}&limit=1`)).text).map(
        (l) => l.seq,
      ),
    ).toEqual([2]);

    const theirs = await waitFor(
      async () => {
        const got = linesOf((await exportText(KEYS.t2)).text);
        return got.length > 0 ? got : undefined;
      },
      { timeoutMs: 20_000, what: "tenant t2's decision in its log" },
    );
    expect(theirs.map((l) => [l.seq, l.tenant, l.record.runId, l.record.who, l.record.keyId])).toEqual([
      [1, 't2', runs.other, 'bob', 'key-t2'],
    ]);

    const blind = new OpenWopClient({ baseUrl: base, apiKey: KEYS.blind });
    const refused = await refusal(blind.call('GET', '/v1/audit'));
    expect([refused.status, refused.code, refused.details?.scopeRequired]).toEqual([
      403,
      'forbidden',
      'audit:read',
    ]);
    const bad = await refusal(t1.call('GET', '/v1/audit?after=-1'));
    expect([bad.status, bad.code]).toEqual([400, 'validation_error']);
  });

  it('reads from/to as RFC 3339 date-times at the edge: every other spelling is 400, never 500', async () => {
    const all = linesOf((await exportText(KEYS.t1)).text);
    expect(all.length).toBeGreaterThan(1);
    const spellings = [
      '2026',
      '2026-W01',
      '2026-W01-1',
      '2026-001T25',
      '2026-001',
      '2026-01-31',
      '20260131T090000Z',
      '2026-01-31T09:00:00',
      '2026-02-30T00:00:00Z',
      '2026-01-31T24:00:00Z',
      '+202026-01-31T09:00:00Z',
      '',
    ];
    for (const name of ['from', 'to']) {
      for (const value of spellings) {
        const res = await fetch(`${base}/v1/audit?${name}=${encodeURIComponent(value)}`, {
          headers: { authorization: `Bearer ${KEYS.t1}` },
        });
        const body = (await res.json()) as { error: string; message: string; details?: unknown };
        expect([name, value, res.status, body.error]).toEqual([name, value, 400, 'validation_error']);
        expect(JSON.stringify(body.details)).toContain(`/${name}`);
        expect(JSON.stringify(body.details)).toContain('RFC 3339');
      }
    }
    const repeated = await exportText(KEYS.t1, '?from=2026-01-31T09:00:00Z&from=2026-01-31T09:00:00Z');
    expect(repeated.status).toBe(400);
    // Valid spellings: any zone, lower-case t/z, a fraction; one instant whatever the spelling.
    const second = all[1]!.at;
    const shifted = new Date(Date.parse(second) + 3_600_000).toISOString().replace('Z', '+01:00');
    for (const from of [second, shifted, second.replace('T', 't').replace('Z', 'z')]) {
      const got = await exportText(KEYS.t1, `?from=${encodeURIComponent(from)}&limit=1`);
      expect([from, got.status, linesOf(got.text).map((l) => l.seq)]).toEqual([from, 200, [2]]);
    }
    const none = await exportText(
      KEYS.t1,
      `?to=${encodeURIComponent('2000-01-01T00:00:00.000000001-12:00')}`,
    );
    expect([none.status, none.text]).toEqual([200, '']);
  });

  it('an export verifies with wop audit verify; an edited, a removed and a reordered record each fail it', async () => {
    const exported = spawnWop(['audit', 'export'], { WOP_URL: base, WOP_API_KEY: KEYS.t1 });
    expect((await exported.exit).code).toBe(0);
    const text = exported.stdout();
    // The first line is the signed head (checked in the next test); these checks need the records only.
    const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('{"type":"audit-head"'));
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const write = (name: string, content: readonly string[]): string => {
      const path = join(dir, name);
      writeFileSync(path, `${content.join('\n')}\n`);
      return path;
    };
    const verify = async (path: string): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const p = spawnWop(['audit', 'verify', path], {});
      const { code } = await p.exit;
      return { code, stdout: p.stdout(), stderr: p.stderr() };
    };

    const ok = await verify(write('ok.ndjson', lines));
    expect(ok).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(`^ok: ${lines.length} records verify \\(seq 1\\.\\.${lines.length}, tenant t1`),
      ),
      stderr: '',
    });

    const edited = lines.map((l, i) => (i === 1 ? l.replace(/"who":"[^"]*"/, '"who":"mallory"') : l));
    expect(edited[1]).toContain('"who":"mallory"');
    expect(await verify(write('edited.ndjson', edited))).toEqual({
      code: 1,
      stdout: expect.stringMatching(/^FAILED: 1 finding/),
      stderr: 'error: edited: record 2 (line 2) was edited: its hash does not match its content\n',
    });

    const removed = lines.filter((_, i) => i !== 2);
    expect(await verify(write('removed.ndjson', removed))).toEqual({
      code: 1,
      stdout: expect.stringMatching(/^FAILED: 1 finding/),
      stderr: 'error: missing: record 3 is missing\n',
    });

    const reordered = [lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)];
    expect(await verify(write('reordered.ndjson', reordered))).toEqual({
      code: 1,
      stdout: expect.stringMatching(/^FAILED: 1 finding/),
      stderr: 'error: reordered: record 2 (line 3) comes after record 3 (line 2)\n',
    });
  });

  it('a signed head: the export verifies under the host public key; edited and re-hashed throughout, it fails', async () => {
    // The public key is served without credentials, and is the one of the configured key.
    const published = (await (await fetch(`${base}/v1/audit/public-key`)).json()) as {
      alg: string;
      kid: string;
      publicKey: string;
      pem: string;
    };
    expect(published).toEqual({
      alg: 'Ed25519',
      kid: AUDIT_KEY.kid,
      publicKey: rawPublicKey(AUDIT_KEY.publicKey),
      pem: expect.stringContaining('BEGIN PUBLIC KEY'),
    });
    // Every gateway signs with it: the export's header and the head route verify.
    for (const gateway of hut.host.gateways) {
      const res = await fetch(`${gateway}/v1/audit`, { headers: { authorization: `Bearer ${KEYS.t1}` } });
      const header = res.headers.get('openwop-audit-head');
      await res.text();
      const signed = JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')) as SignedAuditHead;
      expect(signed.head.tenant).toBe('t1');
      expect(checkAuditHeadSignature(signed, AUDIT_KEY.publicKey)).toEqual({ ok: true });
      const head = await t1.call<SignedAuditHead>('GET', '/v1/audit/head');
      expect(checkAuditHeadSignature(head, AUDIT_KEY.publicKey)).toEqual({ ok: true });
    }
    const blind = await refusal(
      new OpenWopClient({ baseUrl: base, apiKey: KEYS.blind }).call('GET', '/v1/audit/head'),
    );
    expect([blind.status, blind.details?.scopeRequired]).toEqual([403, 'audit:read']);

    const exported = spawnWop(['audit', 'export'], { WOP_URL: base, WOP_API_KEY: KEYS.t1 });
    expect((await exported.exit).code).toBe(0);
    const [headLine, ...records] = exported
      .stdout()
      .split('\n')
      .filter((l) => l !== '');
    const head = JSON.parse(headLine!) as SignedAuditHead;
    expect(head).toMatchObject({
      type: 'audit-head',
      alg: 'Ed25519',
      kid: AUDIT_KEY.kid,
      head: { tenant: 't1' },
    });
    const last = JSON.parse(records.at(-1)!) as Line;
    expect(head.head).toMatchObject({ seq: last.seq, hash: last.hash });

    const write = (name: string, content: readonly string[]): string => {
      const path = join(dir, name);
      writeFileSync(path, `${content.join('\n')}\n`);
      return path;
    };
    const keyFile = write('audit-public-key.pem', [published.pem.trim()]);
    const verify = async (path: string, ...extra: string[]) => {
      const p = spawnWop(['audit', 'verify', path, ...extra], {});
      const { code } = await p.exit;
      return { code, stdout: p.stdout(), stderr: p.stderr() };
    };

    const untouched = write('signed.ndjson', [headLine!, ...records]);
    for (const key of [published.publicKey, keyFile]) {
      expect(await verify(untouched, '--public-key', key)).toEqual({
        code: 0,
        stdout: expect.stringContaining(
          `signed head: seq ${last.seq} of tenant t1, key ${AUDIT_KEY.kid}, signed ${head.head.signedAt}: verified`,
        ),
        stderr: '',
      });
    }

    // Record 2 edited, then every hash from it on recomputed: the chain alone holds, the signed head does not.
    const parsed = records.map((l) => JSON.parse(l) as Line);
    let chainHash = parsed[0]!.hash;
    const tampered = parsed.map((line, i) => {
      if (i === 0) return line;
      const record = i === 1 ? { ...line.record, who: 'mallory' } : line.record;
      const hash = recordHash(line.seq, chainHash, record);
      const out = { ...line, record, prev_hash: chainHash, hash };
      chainHash = hash;
      return out;
    });
    const tamperedLines = tampered.map((l) => JSON.stringify(l));
    expect(tamperedLines[1]).toContain('"who":"mallory"');
    const tamperedFile = write('rehashed.ndjson', [headLine!, ...tamperedLines]);
    expect((await verify(tamperedFile)).code).toBe(0); // without the key, nothing tells
    expect(await verify(tamperedFile, '--public-key', published.publicKey)).toEqual({
      code: 1,
      stdout: expect.stringMatching(/^FAILED: 1 finding/),
      stderr: expect.stringMatching(
        new RegExp(
          `^error: head-mismatch: record ${last.seq} \\(line ${records.length + 1}\\) has hash [0-9a-f]{64}, the signed head says ${last.hash}`,
        ),
      ),
    });
    // Without the head line, or under another key, it fails too.
    expect(
      await verify(write('unsigned.ndjson', tamperedLines), '--public-key', published.publicKey),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('error: unsigned: the export carries no signed head'),
    });
    const other = rawPublicKey(auditSigningKeyFrom(generateAuditSigningKey(), 'other').publicKey);
    expect(await verify(untouched, '--public-key', other)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('error: bad-signature:'),
    });
  });
});
