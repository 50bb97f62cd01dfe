import { OpenWopClient } from '@openwop/sdk';
import { waitFor } from '@openwop/testing';
import { query, waitStatus } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// The approver's inbox (issue 21 item 3, ADR 0035), both modes, real Kafka and Postgres: two
// approvers claim the same interrupt at once and exactly one wins, the other gets 409
// `interrupt_claimed` naming the holder; the list shows what is asked, the holder and the lease,
// and filters by kind, workflow, age, approver, assignee and claimed, sorted by age either way;
// a lapsed lease lets the other approver claim; a resolve over someone else's claim goes through
// and says whose claim it was; an enforced approver list refuses an outsider 403 `forbidden`
// (nothing changes) and accepts a listed approver.

const ALL = [
  'manifest:read',
  'manifest:write',
  'runs:create',
  'runs:read',
  'runs:cancel',
  'approvals:respond',
];
const KEYS = {
  alice: 'inbox_alice_' + 'a'.repeat(24),
  bob: 'inbox_bob_' + 'b'.repeat(24),
  carol: 'inbox_carol_' + 'c'.repeat(24),
  eve: 'inbox_eve_' + 'e'.repeat(24),
};
const API_KEYS = JSON.stringify([
  { key: KEYS.alice, scopes: ALL, tenant: 't1', id: 'key-alice', principal: 'alice' },
  { key: KEYS.bob, scopes: ALL, tenant: 't1', id: 'key-bob', principal: 'bob' },
  { key: KEYS.carol, scopes: ALL, tenant: 't1', id: 'key-carol', principal: 'carol' },
  { key: KEYS.eve, scopes: ALL, tenant: 't2', id: 'key-eve', principal: 'eve' },
]);
type Who = keyof typeof KEYS;

interface Item {
  runId: string;
  nodeId: string;
  workflowId: string;
  kind: string;
  asked: { title: string; question?: string; summary?: string };
  requestedAt: string;
  ageMs: number;
  approversList?: string[];
  assignee?: string;
  claimExpiresAt?: string;
}

function workflow(id: string, gate: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    version: '1.0.0',
    nodes: [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        config: {
          title: `ship ${id}?`,
          description: 'the release notes',
          actions: ['accept', 'reject'],
          timeoutMs: 600_000,
          ...gate,
        },
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

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'the approver inbox end to end, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let base: string;
    const client = {} as Record<Who, OpenWopClient>;
    const wf = { team: `inbox-${mode}-team`, other: `inbox-${mode}-other`, guarded: `inbox-${mode}-guarded` };

    beforeAll(async () => {
      hut = await MODES[mode]({ WOP_API_KEYS: API_KEYS });
      base = hut.host.gateways[0]!;
      for (const who of Object.keys(KEYS) as Who[])
        client[who] = new OpenWopClient({ baseUrl: base, apiKey: KEYS[who] });
      await client.alice.call(
        'POST',
        '/v1/workflows',
        workflow(wf.team, { approversList: ['alice', 'bob'] }),
      );
      await client.alice.call('POST', '/v1/workflows', workflow(wf.other));
      await client.alice.call(
        'POST',
        '/v1/workflows',
        workflow(wf.guarded, { approversList: ['carol'], approverPolicy: 'enforced' }),
      );
    });
    afterAll(async () => {
      await hut?.stop();
    });

    async function http(who: Who, method: 'GET' | 'POST', path: string, body?: unknown) {
      // Bob talks to the last gateway instance (the other one in distributed mode), everyone else to the first.
      const gateway = who === 'bob' ? hut.host.gateways[hut.host.gateways.length - 1]! : base;
      const res = await fetch(`${gateway}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${KEYS[who]}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return {
        status: res.status,
        body: (await res.json()) as Record<string, unknown> & {
          error?: string;
          details?: Record<string, unknown>;
        },
      };
    }
    const claim = (who: Who, runId: string, body: unknown = {}) =>
      http(who, 'POST', `/v1/runs/${runId}/interrupts/gate:claim`, body);
    const release = (who: Who, runId: string) =>
      http(who, 'POST', `/v1/runs/${runId}/interrupts/gate:release`, {});
    const resolve = (who: Who, runId: string) =>
      http(who, 'POST', `/v1/runs/${runId}/interrupts/gate`, { resumeValue: { action: 'accept' } });
    async function list(who: Who, params: Record<string, string>): Promise<Item[]> {
      const { status, body } = await http(
        who,
        'GET',
        `/v1/interrupts?${new URLSearchParams({ limit: '200', ...params }).toString()}`,
      );
      expect(status).toBe(200);
      return body.interrupts as Item[];
    }

    async function waiting(workflowId: string): Promise<string> {
      const { runId } = await client.alice.createRun({ workflowId });
      await waitFor(
        async () =>
          (
            await query(
              hut.db.url,
              `SELECT 1 FROM pending_interrupts p JOIN interrupts i USING (interrupt_id) WHERE p.run_id = $1 AND i.status = 'pending'`,
              [runId],
            )
          ).length === 1,
        { timeoutMs: 30_000, intervalMs: 100, what: `run ${runId} waiting at its gate` },
      );
      return runId;
    }

    it('two approvers claim the same interrupt at once: exactly one wins, the other is told who holds it', async () => {
      const runId = await waiting(wf.team);
      const [a, b] = await Promise.all([claim('alice', runId), claim('bob', runId)]);
      const answers = [a, b].map((r) => r.status).sort();
      expect(answers).toEqual([200, 409]);
      const [won, lost] = a.status === 200 ? [a, b] : [b, a];
      const winner = won.body.claimedBy as string;
      const loser: Who = winner === 'alice' ? 'bob' : 'alice';
      expect(['alice', 'bob']).toContain(winner);
      expect(Date.parse(won.body.claimExpiresAt as string)).toBeGreaterThan(Date.now());
      expect(lost.body.error).toBe('interrupt_claimed');
      expect(lost.body.details).toMatchObject({ claimedBy: winner, claimExpiresAt: won.body.claimExpiresAt });

      // The inbox shows who works on it, and the loser can filter it away.
      const [row] = (await list(loser, { workflowId: wf.team })).filter((i) => i.runId === runId);
      expect(row).toMatchObject({
        assignee: winner,
        claimExpiresAt: won.body.claimExpiresAt,
        approversList: ['alice', 'bob'],
      });
      expect(row!.asked).toEqual({
        title: `ship ${wf.team}?`,
        question: 'the release notes',
        summary: 'Approve workflow-node',
      });
      expect((await list(loser, { assignee: winner })).map((i) => i.runId)).toContain(runId);
      expect((await list(loser, { assignee: loser })).map((i) => i.runId)).not.toContain(runId);
      expect((await list(loser, { claimed: 'true' })).map((i) => i.runId)).toContain(runId);
      expect((await list(loser, { claimed: 'false' })).map((i) => i.runId)).not.toContain(runId);
      expect((await client[loser].getRun(runId)).interrupt).toMatchObject({
        nodeId: 'gate',
        assignee: winner,
        claimExpiresAt: won.body.claimExpiresAt,
      });

      // Only the holder releases; then the other may claim.
      expect((await release(loser, runId)).body.error).toBe('interrupt_claimed');
      const renewed = await claim(winner as Who, runId, { leaseMs: 120_000 });
      expect(renewed).toMatchObject({ status: 200, body: { claimedBy: winner } });
      expect(await release(winner as Who, runId)).toMatchObject({ status: 200 });
      expect((await release(winner as Who, runId)).status).toBe(200);
      expect((await claim(loser, runId)).body.claimedBy).toBe(loser);

      // Another tenant neither sees nor claims it.
      expect((await list('eve', {})).map((i) => i.runId)).not.toContain(runId);
      expect((await claim('eve', runId)).status).toBe(404);
      expect((await claim('alice', runId, { leaseMs: 0 })).body.error).toBe('validation_error');
    });

    it('a lapsed lease lets another approver claim; a resolve over a live claim goes through and names the holder', async () => {
      const runId = await waiting(wf.team);
      expect((await claim('alice', runId, { leaseMs: 1 })).status).toBe(200);
      await waitFor(
        async () =>
          (await list('bob', { claimed: 'false', workflowId: wf.team })).some((i) => i.runId === runId),
        {
          timeoutMs: 10_000,
          intervalMs: 50,
          what: 'the one-millisecond lease lapsed',
        },
      );
      const taken = await claim('bob', runId);
      expect(taken).toMatchObject({ status: 200, body: { claimedBy: 'bob' } });

      const answered = await resolve('alice', runId);
      expect(answered).toMatchObject({
        status: 200,
        body: { status: 'resolved', claimedBy: 'bob', claimExpiresAt: taken.body.claimExpiresAt },
      });
      await waitStatus(client.alice, runId, 'completed', 30_000);
      expect((await claim('bob', runId)).body.error).toBe('interrupt_already_resolved');
    });

    it('filters by kind, workflow, age and approver, and sorts by age either way', async () => {
      const first = await waiting(wf.other);
      const second = await waiting(wf.other);
      const youngestFirst = (await list('alice', { workflowId: wf.other })).map((i) => i.runId);
      expect(youngestFirst.indexOf(second)).toBeLessThan(youngestFirst.indexOf(first));
      const oldestFirst = await list('alice', { workflowId: wf.other, sort: '-age' });
      expect(oldestFirst.map((i) => i.runId).indexOf(first)).toBeLessThan(
        oldestFirst.map((i) => i.runId).indexOf(second),
      );
      const ages = oldestFirst.map((i) => i.ageMs);
      expect([...ages].sort((x, y) => y - x)).toEqual(ages);
      expect(oldestFirst.every((i) => i.workflowId === wf.other)).toBe(true);

      // Keyset pages in the oldest-first order hold every row once.
      const page1 = await http(
        'alice',
        'GET',
        `/v1/interrupts?${new URLSearchParams({ workflowId: wf.other, sort: '-age', limit: '1' }).toString()}`,
      );
      const page2 = await http(
        'alice',
        'GET',
        `/v1/interrupts?${new URLSearchParams({ workflowId: wf.other, sort: '-age', limit: '1', cursor: page1.body.nextCursor as string }).toString()}`,
      );
      expect(
        [...(page1.body.interrupts as Item[]), ...(page2.body.interrupts as Item[])].map((i) => i.runId),
      ).toEqual([first, second]);

      expect((await list('alice', { kind: 'clarification', workflowId: wf.other })).length).toBe(0);
      expect((await list('alice', { kind: 'approval', workflowId: wf.other })).length).toBe(2);
      expect((await list('alice', { workflowId: wf.other, olderThanMs: '3600000' })).length).toBe(0);
      expect((await list('alice', { approver: 'carol' })).every((i) => i.workflowId === wf.guarded)).toBe(
        true,
      );
      expect((await list('alice', { approver: 'alice' })).every((i) => i.workflowId === wf.team)).toBe(true);
      expect((await http('alice', 'GET', '/v1/interrupts?sort=oldest')).body.error).toBe('validation_error');
    });

    it('an enforced approver list refuses an outsider with 403 forbidden and accepts a listed approver', async () => {
      const runId = await waiting(wf.guarded);
      const claimed = await claim('alice', runId);
      expect(claimed).toMatchObject({ status: 403, body: { error: 'forbidden' } });
      const answered = await resolve('alice', runId);
      expect(answered).toMatchObject({ status: 403, body: { error: 'forbidden' } });
      const [row] = (await list('carol', { approver: 'carol' })).filter((i) => i.runId === runId);
      expect(row).toBeDefined();
      expect(row!.assignee).toBeUndefined();
      expect((await client.alice.getRun(runId)).status).toBe('waiting-approval');

      expect((await claim('carol', runId)).body.claimedBy).toBe('carol');
      expect(await resolve('carol', runId)).toMatchObject({ status: 200, body: { status: 'resolved' } });
      await waitStatus(client.alice, runId, 'completed', 30_000);
    });
  },
);
