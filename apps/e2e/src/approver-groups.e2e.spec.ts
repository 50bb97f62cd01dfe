import { TEST_API_KEYS_JSON, TEST_KEYS, waitFor } from '@openwop/testing';
import { query, workflowDefinition } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// Group approvers and escalation beyond approvals (issue 21 items 3 and 4, ADR 0034 and 0035), both
// modes, real Kafka and Postgres. Principals get groups from the API key configuration only: carol's
// key puts her in `finance`, dave's in `sales`. An enforced gate reassigned to `group:finance` by
// its escalation is found by carol's inbox filter and answered by her (the audit record says which
// entry admitted her); dave gets 403. A clarification with an escalation policy reminds, is
// reassigned, reminds the new approvers by name, then times out (its own timeout behaviour).

const CAROL = 'test_carol_' + 'e'.repeat(24);
const DAVE = 'test_dave_' + 'f'.repeat(24);
const KEYS = JSON.stringify([
  ...(JSON.parse(TEST_API_KEYS_JSON) as unknown[]),
  {
    key: CAROL,
    scopes: ['runs:read', 'approvals:respond'],
    tenant: 't1',
    id: 'key-carol',
    principal: 'carol',
    groups: ['finance'],
  },
  {
    key: DAVE,
    scopes: ['runs:read', 'approvals:respond'],
    tenant: 't1',
    id: 'key-dave',
    principal: 'dave',
    groups: ['sales'],
  },
]);

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

async function call(
  gateway: string,
  key: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const enforcedGate = (id: string) =>
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
          approverPolicy: 'enforced',
          timeoutMs: 600_000,
          escalation: { reassign: { afterMs: 500, group: 'finance' } },
        },
      },
      { id: 'after', typeId: 'core.noop' },
    ],
    [['gate', 'after']],
  );

const clarification = (id: string) =>
  workflowDefinition(id, [
    {
      id: 'ask',
      typeId: 'core.clarificationGate',
      config: {
        questions: [{ id: 'account', question: 'Which account?' }],
        timeoutMs: 4_000,
        approversList: ['alice'],
        escalation: {
          reminders: [{ afterMs: 1_000 }, { afterMs: 3_000 }],
          reassign: { afterMs: 2_000, group: 'finance' },
          defaultAction: 'expire',
        },
      },
    },
  ]);

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'group approvers and escalation of a clarification, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    const gw = () => hut.host.gateways[0]!;
    const logOf = (runId: string) =>
      query<{ type: string; payload: Record<string, unknown> }>(
        hut.db.url,
        `SELECT type, doc->'payload' AS payload FROM run_events WHERE run_id = $1 ORDER BY sequence`,
        [runId],
      );
    const statusOf = async (runId: string) =>
      (await call(gw(), TEST_KEYS.t1, 'GET', `/v1/runs/${runId}`).catch(() => undefined))?.json.status;

    beforeAll(async () => {
      hut = await MODES[mode]({ WOP_API_KEYS: KEYS, INTERRUPT_TIMER_MS: '100' });
    }, 180_000);
    afterAll(async () => {
      await hut?.stop();
    }, 60_000);

    it('a member of the group an enforced gate was reassigned to finds it in the inbox and resolves it; a non-member gets 403', async () => {
      const workflowId = `groups-gate-${mode}`;
      expect(
        (await call(gw(), TEST_KEYS.t1, 'POST', '/v1/workflows', enforcedGate(workflowId))).status,
      ).toBeLessThan(300);
      const created = await call(gw(), TEST_KEYS.t1, 'POST', '/v1/runs', { workflowId });
      expect(created.status).toBe(201);
      const runId = created.json.runId as string;

      // carol's inbox (approver=carol) finds the item once it names group:finance.
      const item = await waitFor(
        async () => {
          const inbox = await call(gw(), CAROL, 'GET', `/v1/interrupts?approver=carol&runId=${runId}`);
          const items = inbox.json.interrupts as { approversList?: string[] }[] | undefined;
          return items?.length === 1 ? items[0] : undefined;
        },
        { timeoutMs: 30_000, what: "the reassigned gate in carol's inbox" },
      );
      expect(item.approversList).toEqual(['group:finance']);
      const davesInbox = await call(gw(), DAVE, 'GET', `/v1/interrupts?approver=dave&runId=${runId}`);
      expect(davesInbox.json.interrupts).toEqual([]);

      // dave is not in finance: refused, nothing recorded; a claim is refused the same way.
      const refused = await call(gw(), DAVE, 'POST', `/v1/runs/${runId}/interrupts/gate`, {
        resumeValue: { action: 'accept' },
      });
      expect(refused.status).toBe(403);
      expect(refused.json.error).toBe('forbidden');
      expect((await call(gw(), DAVE, 'POST', `/v1/runs/${runId}/interrupts/gate:claim`, {})).status).toBe(
        403,
      );
      // A group named in the request body gives nobody a group.
      const smuggled = await call(gw(), DAVE, 'POST', `/v1/runs/${runId}/interrupts/gate`, {
        resumeValue: { action: 'accept' },
        groups: ['finance'],
      });
      expect(smuggled.status).toBeGreaterThanOrEqual(400);
      expect(await statusOf(runId)).toBe('waiting-approval');

      const answered = await call(gw(), CAROL, 'POST', `/v1/runs/${runId}/interrupts/gate`, {
        resumeValue: { action: 'accept' },
      });
      expect(answered.status).toBeLessThan(300);
      await waitFor(async () => ((await statusOf(runId)) === 'completed' ? true : undefined), {
        timeoutMs: 30_000,
        what: `run ${runId} completed`,
      });
      const audit = await waitFor(
        async () => {
          const rows = await query<{ action: string; who: string; keyId: string; admittedAs: string | null }>(
            hut.db.url,
            `SELECT record->>'action' AS action, record->>'who' AS who, record->>'keyId' AS "keyId", record->>'admittedAs' AS "admittedAs"
             FROM audit_records WHERE record->>'runId' = $1 AND record->>'action' = 'resolve'`,
            [runId],
          );
          return rows.length > 0 ? rows : undefined;
        },
        { timeoutMs: 30_000, what: 'the audit record of the resolve' },
      );
      expect(audit).toEqual([
        { action: 'resolve', who: 'carol', keyId: 'key-carol', admittedAs: 'group:finance' },
      ]);
    }, 120_000);

    it('a clarification with an escalation policy reminds, is reassigned, reminds the new approvers, then times out', async () => {
      const workflowId = `groups-clarification-${mode}`;
      expect(
        (await call(gw(), TEST_KEYS.t1, 'POST', '/v1/workflows', clarification(workflowId))).status,
      ).toBeLessThan(300);
      const created = await call(gw(), TEST_KEYS.t1, 'POST', '/v1/runs', { workflowId });
      expect(created.status).toBe(201);
      const runId = created.json.runId as string;
      await waitFor(async () => ((await statusOf(runId)) === 'failed' ? true : undefined), {
        timeoutMs: 60_000,
        what: `run ${runId} ended by the clarification's timeout`,
      });
      const log = await waitFor(
        async () => {
          const events = await logOf(runId);
          return events.some((e) => e.type === 'run.failed') ? events : undefined;
        },
        { what: 'the run log up to run.failed' },
      );
      const steps = log.filter((e) =>
        ['interrupt.reminded', 'interrupt.reassigned', 'interrupt.resolved'].includes(e.type),
      );
      expect(steps.map((e) => [e.type, e.payload.step ?? e.payload.outcome])).toEqual([
        ['interrupt.reminded', 0],
        ['interrupt.reassigned', 1],
        ['interrupt.reminded', 2],
        ['interrupt.resolved', 'timeout'],
      ]);
      // Each reminder names the approvers of its moment: the first alice, the one after the reassignment finance.
      expect(steps[0]!.payload.approvers).toEqual(['alice']);
      expect(steps[1]!.payload).toMatchObject({ approvers: ['group:finance'], previousApprovers: ['alice'] });
      expect(steps[2]!.payload.approvers).toEqual(['group:finance']);
      // The run log's interrupt.requested keeps the spec's clarification data; the policy rode outside it.
      const requested = log.find((e) => e.type === 'interrupt.requested')!;
      expect(Object.keys(requested.payload.data as object)).toEqual(['questions']);
      const audit = await waitFor(
        async () => {
          const rows = await query<{ action: string; route: string }>(
            hut.db.url,
            `SELECT record->>'action' AS action, record->>'route' AS route FROM audit_records WHERE record->>'runId' = $1 ORDER BY seq`,
            [runId],
          );
          return rows.length >= 2 ? rows : undefined;
        },
        { timeoutMs: 30_000, what: 'the audit records of the escalation' },
      );
      expect(audit).toEqual([
        { action: 'reassign', route: 'escalation' },
        { action: 'expire', route: 'escalation' },
      ]);
    }, 120_000);
  },
);
