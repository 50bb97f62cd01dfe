import { TEST_API_KEYS_JSON, TEST_KEYS, testTokenKeysJson, waitFor } from '@openwop/testing';
import { query, workflowDefinition } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// Approver enforcement is the rule under major 2 (issue 30 item 4; RFC 0173 §B, RFC 0104, v2
// interrupt.md §Approver enforcement), both modes, real Kafka and Postgres. One gate names
// `approversList: ['alice']`, `approverGroupRefs: ['finance']` and `approverRoleRefs:
// ['controller']`, with no `approverPolicy`. On a run created under major 2 a non-member is refused
// on the resolve API, in a bulk resolve and through the signed link; carol (group finance, from her
// key) resolves one run by the API and erin (role controller) another in a bulk. The same gate on a
// major-1 run stays advisory. A replay fork of the decided v2 run is a v2 run whose recorded
// decision stands: its gate takes carol's answer, nobody is asked and no membership is looked up.

const CAROL = 'test_carol_' + 'e'.repeat(24);
const DAVE = 'test_dave_' + 'f'.repeat(24);
const ERIN = 'test_erin_' + 'g'.repeat(24);
const person = (key: string, principal: string, extra: Record<string, unknown>) => ({
  key,
  scopes: ['runs:read', 'approvals:respond'],
  tenant: 't1',
  id: `key-${principal}`,
  principal,
  ...extra,
});
const KEYS = JSON.stringify([
  ...(JSON.parse(TEST_API_KEYS_JSON) as unknown[]),
  person(CAROL, 'carol', { groups: ['finance'] }),
  person(DAVE, 'dave', { groups: ['sales'], roles: ['clerk'] }),
  person(ERIN, 'erin', { roles: ['controller'] }),
]);
const TOKEN_KID = 'e2e-approvers';

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

async function call(
  gateway: string,
  key: string | undefined,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  version?: string,
): Promise<Answer> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}),
      ...(version !== undefined ? { 'openwop-version': version } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const gate = (id: string) =>
  workflowDefinition(
    id,
    [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        config: {
          title: 'pay the invoice?',
          actions: ['accept', 'reject'],
          approversList: ['alice'],
          approverGroupRefs: ['finance'],
          approverRoleRefs: ['controller'],
          timeoutMs: 600_000,
        },
      },
      { id: 'after', typeId: 'core.noop' },
    ],
    [['gate', 'after']],
  );

interface BulkResult {
  readonly ok: boolean;
  readonly status?: string;
  readonly error?: { readonly code: string };
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'approver enforcement of a major-2 run, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    const workflowId = `approvers-v2-${mode}`;
    const gw = () => hut.host.gateways[0]!;
    const accept = { resumeValue: { action: 'accept' } };
    const statusOf = async (runId: string) =>
      (await call(gw(), TEST_KEYS.t1, 'GET', `/v1/runs/${runId}`).catch(() => undefined))?.json.status;
    const completed = (runId: string) =>
      waitFor(async () => ((await statusOf(runId)) === 'completed' ? true : undefined), {
        timeoutMs: 30_000,
        what: `run ${runId} completed`,
      });
    const logOf = (runId: string) =>
      query<{ type: string; payload: Record<string, unknown> }>(
        hut.db.url,
        `SELECT type, doc->'payload' AS payload FROM run_events WHERE run_id = $1 ORDER BY sequence`,
        [runId],
      );
    const bulk = async (key: string, runId: string): Promise<BulkResult> => {
      const answer = await call(gw(), key, 'POST', '/v1/interrupts:bulk-resolve', {
        items: [{ runId, nodeId: 'gate', ...accept }],
      });
      expect(answer.status).toBe(200);
      return (answer.json.results as BulkResult[])[0]!;
    };

    /** A run of `workflowId` created under `major`, waiting at its gate with its link token. */
    async function waiting(major: 1 | 2): Promise<{ runId: string; token: string }> {
      const created =
        major === 2
          ? await call(gw(), TEST_KEYS.t1, 'POST', '/runs', { workflowId }, '2')
          : await call(gw(), TEST_KEYS.t1, 'POST', '/v1/runs', { workflowId });
      expect(created.status).toBe(201);
      const runId = created.json.runId as string;
      const token = await waitFor(
        async () => {
          const s = await call(gw(), TEST_KEYS.t1, 'GET', `/v1/runs/${runId}`);
          const i = s.json.interrupt as { interruptToken?: string } | undefined;
          return s.json.status === 'waiting-approval' ? i?.interruptToken : undefined;
        },
        { timeoutMs: 30_000, what: `run ${runId} waiting at its gate` },
      );
      return { runId, token };
    }

    beforeAll(async () => {
      hut = await MODES[mode]({ WOP_API_KEYS: KEYS, WOP_TOKEN_KEYS: testTokenKeysJson(TOKEN_KID) });
      expect((await call(gw(), TEST_KEYS.t1, 'POST', '/v1/workflows', gate(workflowId))).status).toBe(201);
    }, 180_000);
    afterAll(async () => {
      await hut?.stop();
    }, 60_000);

    it('discovery under major 2 advertises the ref kinds it enforces', async () => {
      const v2 = await call(gw(), undefined, 'GET', '/.well-known/openwop', undefined, '2');
      expect((v2.json.interrupt as Record<string, unknown>).refKinds).toEqual(['principal', 'group', 'role']);
    });

    it('refuses a non-member on the API, in a bulk and through the link; a group member resolves by the API, and its replay fork keeps the decision', async () => {
      const { runId, token } = await waiting(2);
      for (const [key, path] of [
        [DAVE, `/v1/runs/${runId}/interrupts/gate`],
        [DAVE, `/runs/${runId}/interrupts/gate`],
        [TEST_KEYS.t1, `/v1/runs/${runId}/interrupts/gate`],
      ] as const) {
        const refused = await call(gw(), key, 'POST', path, accept, path.startsWith('/v1') ? undefined : '2');
        expect([path, refused.status, refused.json.error]).toEqual([path, 403, 'forbidden']);
      }
      expect(await bulk(DAVE, runId)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      const byLink = await call(gw(), undefined, 'POST', `/v1/interrupts/${token}`, accept);
      expect([byLink.status, byLink.json.error]).toEqual([403, 'forbidden']);
      expect(await statusOf(runId)).toBe('waiting-approval');

      const answered = await call(gw(), CAROL, 'POST', `/v1/runs/${runId}/interrupts/gate`, accept);
      expect(answered.status).toBeLessThan(300);
      await completed(runId);
      const resolved = (await logOf(runId)).find((e) => e.type === 'interrupt.resolved');
      expect(resolved?.payload).toMatchObject({ resolvedBy: 'carol' });

      // The fork is a run of its source's major whose recorded decision stands: nobody answers again.
      const fork = await call(gw(), TEST_KEYS.t1, 'POST', `/runs/${runId}:fork`, { mode: 'replay' }, '2');
      expect(fork.status).toBe(201);
      const forkId = fork.json.runId as string;
      await completed(forkId);
      const forkLog = await logOf(forkId);
      expect(forkLog[0]).toMatchObject({ type: 'run.started', payload: { protocolMajor: 2 } });
      // Its gate takes the recorded answer: no interrupt is raised, and carol's decision is the output.
      expect(forkLog.map((e) => e.type)).not.toContain('interrupt.requested');
      expect(
        forkLog.find((e) => e.type === 'node.completed' && e.payload.nodeId === 'gate')?.payload,
      ).toMatchObject({ outputs: { action: 'accept', decidedBy: 'carol' } });
    }, 120_000);

    it('a role holder resolves in a bulk', async () => {
      const { runId } = await waiting(2);
      expect(await bulk(DAVE, runId)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await bulk(ERIN, runId)).toMatchObject({ ok: true, status: 'resolved' });
      await completed(runId);
      const audit = await waitFor(
        async () => {
          const rows = await query<{ who: string; admittedAs: string | null }>(
            hut.db.url,
            `SELECT record->>'who' AS who, record->>'admittedAs' AS "admittedAs"
             FROM audit_records WHERE record->>'runId' = $1 AND record->>'action' = 'resolve'`,
            [runId],
          );
          return rows.length > 0 ? rows : undefined;
        },
        { timeoutMs: 30_000, what: 'the audit record of the resolve' },
      );
      expect(audit).toEqual([{ who: 'erin', admittedAs: 'role:controller' }]);
    }, 120_000);

    it('the same gate on a major-1 run stays advisory: a non-member resolves it', async () => {
      const { runId } = await waiting(1);
      const answered = await call(gw(), DAVE, 'POST', `/v1/runs/${runId}/interrupts/gate`, accept);
      expect(answered.status).toBeLessThan(300);
      await completed(runId);
    }, 120_000);
  },
);
