import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import type { AgentTurnCommand } from '@openwop/contracts';
import { openDatabase, transaction } from '@openwop/platform-db';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import {
  claimTurns,
  onAgentTurnsOwed,
  oweAgentTurns,
  releaseTurn,
  renewLeases,
  settleTurn,
} from './agent-turn.store';

/** The owed agent turns (ADR 0037) against a real Postgres: claims, leases, order, settling once. */
describe('engine_agent_turns (Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  const turn = (conversationId: string, afterTurnIndex: number): AgentTurnCommand => ({
    id: `agent:${conversationId}:a:${afterTurnIndex}`,
    type: 'agent.turn',
    occurredAt: '2026-01-01T00:00:00.000Z',
    correlationId: 'r1',
    actor: { tenant: 't1', principal: 'p' },
    data: {
      runId: `run-${conversationId}`,
      nodeId: 'talk',
      interruptId: 'i',
      conversationId,
      speakerId: 'a',
      afterTurnIndex,
    },
  });
  const owe = (...turns: AgentTurnCommand[]) => transaction(ds, (m) => oweAgentTurns(m, turns));
  const claim = (owner: string, leaseMs = 60_000, limit = 10) =>
    transaction(ds, (m) => claimTurns(m, owner, leaseMs, limit));

  beforeAll(async () => {
    db = await createTestDatabase('agent_turns');
    ds = await openDatabase({ url: db.url, poolSize: 4, applicationName: 'agent-turns-int' });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(() => ds.query('DELETE FROM engine_agent_turns'));

  it('owes a turn once, wakes this process after the commit (not after a rollback), and claims it for one worker', async () => {
    let rings = 0;
    const off = onAgentTurnsOwed(() => rings++);
    try {
      await expect(
        transaction(ds, async (m) => {
          await oweAgentTurns(m, [turn('c0', 0)]);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await owe(turn('c1', 0));
      await owe(turn('c1', 0)); // re-decided follow-up: the same row
      expect(rings).toBe(2);
    } finally {
      off();
    }
    const [a, b] = await Promise.all([claim('w1'), claim('w2')]);
    expect([...a, ...b].map((t) => [t.turnId, t.attempt, t.command.data.afterTurnIndex])).toEqual([
      ['agent:c1:a:0', 1, 0],
    ]);
    expect(await claim('w3')).toEqual([]); // leased
  });

  it("a conversation's later turn waits for the earlier one; other conversations do not", async () => {
    await owe(turn('c1', 0), turn('c1', 2), turn('c2', 4));
    const first = await claim('w1');
    expect(first.map((t) => t.turnId).sort()).toEqual(['agent:c1:a:0', 'agent:c2:a:4']);
    const c1 = first.find((t) => t.turnId === 'agent:c1:a:0')!;
    expect(await transaction(ds, (m) => settleTurn(m, 'w1', c1))).toBe(true);
    expect((await claim('w1')).map((t) => t.turnId)).toEqual(['agent:c1:a:2']);
  });

  it('a lease that runs out is claimed again; the first claim can then neither settle nor renew it', async () => {
    await owe(turn('c1', 0));
    const [dead] = await claim('w-dead', 100);
    await waitFor(async () => ((await claim('w2')).length === 1 ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'the lease to run out',
    });
    await transaction(ds, (m) => renewLeases(m, 'w-dead', 60_000, [dead!.turnId]));
    expect(await transaction(ds, (m) => settleTurn(m, 'w-dead', dead!))).toBe(false);
    const [row] = await ds.query<{ claimed_by: string; attempts: number }[]>(
      'SELECT claimed_by, attempts FROM engine_agent_turns',
    );
    expect(row).toEqual({ claimed_by: 'w2', attempts: 2 });
    const retaken = { ...dead!, attempt: 2 };
    expect(await transaction(ds, (m) => settleTurn(m, 'w2', retaken))).toBe(true);
    expect(await transaction(ds, (m) => settleTurn(m, 'w2', retaken))).toBe(false); // settled once
  });

  it("a claim carries its run's state and whether an engine of the previous release decided the turn, so the worker reads neither", async () => {
    await ds.query(
      `INSERT INTO engine_runs (run_id, tenant, workflow_id, state, last_sequence) VALUES ('run-s1', 't1', 'w', '{"marker": 1}'::jsonb, 0)`,
    );
    await ds.query(
      `INSERT INTO processed_messages (consumer, message_id, reply) VALUES ('engine', 'agent:s2:a:0', '{"ok": true}'::jsonb)`,
    );
    await ds.query(
      `INSERT INTO processed_messages (consumer, message_id, reply) VALUES ('engine', 'agent:s3:a:0', NULL)`,
    );
    await owe(turn('s1', 0), turn('s2', 0), turn('s3', 0));
    const claimed = await claim('w1');
    const by = (id: string) => claimed.find((t) => t.turnId === id)!;
    expect(by('agent:s1:a:0')).toMatchObject({ runState: { marker: 1 }, decidedBefore: false });
    expect(by('agent:s2:a:0')).toMatchObject({ runState: null, decidedBefore: true });
    expect(by('agent:s3:a:0')).toMatchObject({ runState: null, decidedBefore: false }); // no reply stored: not decided
  });

  it('a released turn is due again after its delay, for any worker', async () => {
    await owe(turn('c1', 0));
    const [t] = await claim('w1');
    await transaction(ds, (m) => releaseTurn(m, 'w1', t!, 0));
    const [again] = await claim('w2');
    expect(again!.attempt).toBe(2);
    await transaction(ds, (m) => releaseTurn(m, 'w2', again!, 60_000));
    expect(await claim('w3')).toEqual([]);
  });
});
