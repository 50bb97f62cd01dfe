import type { DataSource } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
import { openDatabase, transaction } from '@openwop/platform-db';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { applyRunEvents, markProjectionBroken, SequenceGapError } from './run-event.projection';
import { runEventDoc } from './run-event-docs.spec';

/** An approval run's log: suspended after event 3, completed after event 7. */
const approvalRun = (runId: string): RunEventDoc[] => [
  runEventDoc(runId, 0, 'run.started', { workflowId: 'wf', owner: { tenant: 't1' } }),
  runEventDoc(runId, 1, 'node.started', { nodeId: 'gate', typeId: 'core.approval' }, 'gate'),
  runEventDoc(
    runId,
    2,
    'interrupt.requested',
    {
      runId,
      nodeId: 'gate',
      interruptId: `${runId}:gate:0`,
      kind: 'approval',
      key: `${runId}:gate:0`,
      data: {},
      requestedAt: '2026-11-22T00:00:02.000Z',
    },
    'gate',
  ),
  runEventDoc(runId, 3, 'node.suspended', { nodeId: 'gate', kind: 'approval', reason: 'approval' }, 'gate'),
  runEventDoc(runId, 4, 'interrupt.resolved', { interruptId: `${runId}:gate:0` }, 'gate'),
  runEventDoc(runId, 5, 'node.resumed', {}, 'gate'),
  runEventDoc(runId, 6, 'node.completed', { nodeId: 'gate' }, 'gate'),
  runEventDoc(runId, 7, 'run.completed', { outputs: {} }),
];

describe('the run event projection (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase('projection');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const apply = (events: readonly RunEventDoc[]) => transaction(ds, (m) => applyRunEvents(m, events));
  const runRow = async (runId: string) =>
    (
      await ds.query<{ status: string; last_sequence: number; tenant: string }[]>(
        'SELECT status, last_sequence, tenant FROM runs WHERE run_id = $1',
        [runId],
      )
    )[0];
  const stored = async (runId: string) =>
    (
      await ds.query<{ sequence: number }[]>(
        'SELECT sequence FROM run_events WHERE run_id = $1 ORDER BY sequence',
        [runId],
      )
    ).map((r) => r.sequence);
  const pending = async (runId: string) =>
    (
      await ds.query<{ interrupt_id: string }[]>(
        'SELECT interrupt_id FROM pending_interrupts WHERE run_id = $1',
        [runId],
      )
    ).map((r) => r.interrupt_id);

  it('stores a batch, moves the run row and the pending interrupts, and skips what it stored before', async () => {
    const log = approvalRun('p1');
    expect(await apply(log.slice(0, 4))).toEqual([{ runId: 'p1', sequence: 3 }]);
    expect(await runRow('p1')).toEqual({ status: 'waiting-approval', last_sequence: 3, tenant: 't1' });
    expect(await stored('p1')).toEqual([0, 1, 2, 3]);
    expect(await pending('p1')).toEqual(['p1:gate:0']);

    expect(await apply(log.slice(0, 4))).toEqual([]); // a redelivery changes nothing
    expect(await apply(log.slice(2, 6))).toEqual([{ runId: 'p1', sequence: 5 }]); // overlapping: only 4 and 5 are new
    expect(await stored('p1')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await pending('p1')).toEqual([]);
    expect(await apply(log.slice(6))).toEqual([{ runId: 'p1', sequence: 7 }]);
    expect(await runRow('p1')).toMatchObject({ status: 'completed', last_sequence: 7 });
  });

  it('an interrupt resolved and its run ended in one batch leave no pending interrupt', async () => {
    const log = approvalRun('p5');
    await apply(log.slice(0, 4));
    expect(await pending('p5')).toEqual(['p5:gate:0']);
    expect(await apply(log.slice(4))).toEqual([{ runId: 'p5', sequence: 7 }]);
    expect(await pending('p5')).toEqual([]);
    expect(await runRow('p5')).toMatchObject({ status: 'completed', last_sequence: 7 });
  });

  it('applies the events of several runs in one batch, each to its own row', async () => {
    const a = approvalRun('p2');
    const b = approvalRun('p3');
    const batch = [a[0]!, b[0]!, a[1]!, b[1]!, b[2]!, b[3]!];
    expect(await apply(batch)).toEqual([
      { runId: 'p2', sequence: 1 },
      { runId: 'p3', sequence: 3 },
    ]);
    expect(await runRow('p2')).toMatchObject({ status: 'running', last_sequence: 1 });
    expect(await runRow('p3')).toMatchObject({ status: 'waiting-approval', last_sequence: 3 });
  });

  it('refuses a gap and writes nothing of the batch', async () => {
    const log = approvalRun('p4');
    await apply(log.slice(0, 2));
    await expect(apply([log[2]!, log[4]!])).rejects.toBeInstanceOf(SequenceGapError);
    expect(await stored('p4')).toEqual([0, 1]);
    expect(await runRow('p4')).toMatchObject({ last_sequence: 1 });
    expect(await pending('p4')).toEqual([]);
  });

  it('stores a run of 20,000 events in one batch: more than 65,535 parameters go in several statements', async () => {
    const runId = 'big';
    const events: RunEventDoc[] = [
      runEventDoc(runId, 0, 'run.started', { workflowId: 'wf', owner: { tenant: 't1' } }),
    ];
    for (let i = 1; events.length < 19_999; i += 2) {
      events.push(runEventDoc(runId, i, 'node.started', { nodeId: 'a', typeId: 'core.noop' }, 'a'));
      events.push(runEventDoc(runId, i + 1, 'node.completed', { nodeId: 'a', outputs: {} }, 'a'));
    }
    events.push(runEventDoc(runId, events.length, 'run.completed', { outputs: {} }));
    expect(events.length * 6).toBeGreaterThan(65_535);
    for (const [i, e] of events.entries()) events[i] = { ...e, timestamp: '2026-11-22T00:00:00.000Z' };
    expect(await apply(events)).toEqual([{ runId, sequence: 19_999 }]);
    const [count] = await ds.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM run_events WHERE run_id = $1',
      [runId],
    );
    expect(count!.n).toBe(20_000);
    expect(await runRow(runId)).toMatchObject({ status: 'completed', last_sequence: 19_999 });
  });

  it('stores every number the event schema allows: a turn at ts 1e300, a gate timeout of 1e15 and 1e300 ms', async () => {
    const runId = 'odd';
    const turn = (turnIndex: number, ts: number) => ({
      messageId: `m${turnIndex}`,
      from: 'user',
      role: 'user',
      content: 'x',
      ts,
      turnIndex,
    });
    const interrupt = (n: number, timeoutMs: number) =>
      runEventDoc(
        runId,
        n,
        'interrupt.requested',
        {
          runId,
          nodeId: 'talk',
          interruptId: `${runId}:talk:${n}`,
          kind: 'approval',
          key: `${runId}:talk:${n}`,
          data: {},
          timeoutMs,
          requestedAt: '2026-11-22T00:00:02.000Z',
        },
        'talk',
      );
    const log = [
      runEventDoc(runId, 0, 'run.started', { workflowId: 'wf', owner: { tenant: 't1' } }),
      runEventDoc(runId, 1, 'node.started', { nodeId: 'talk', typeId: 'core.conversationGate' }, 'talk'),
      interrupt(2, 1e15),
      runEventDoc(
        runId,
        3,
        'conversation.opened',
        { conversationId: `${runId}:talk:0`, initialTurn: turn(0, 1e300) },
        'talk',
      ),
      runEventDoc(
        runId,
        4,
        'conversation.exchanged',
        { conversationId: `${runId}:talk:0`, turnIndex: 1, turn: turn(1, -1e300) },
        'talk',
      ),
      interrupt(5, 1e300),
    ];
    expect(await apply(log)).toEqual([{ runId, sequence: 5 }]);
    expect(await stored(runId)).toEqual([0, 1, 2, 3, 4, 5]);
    const turns = await ds.query<{ ts: number }[]>(
      'SELECT ts FROM conversation_turns WHERE run_id = $1 ORDER BY turn_index',
      [runId],
    );
    expect(turns.map((t) => t.ts)).toEqual([1e300, -1e300]);
    const timeouts = await ds.query<{ timeout_ms: number }[]>(
      'SELECT timeout_ms FROM pending_interrupts WHERE run_id = $1 ORDER BY interrupt_id',
      [runId],
    );
    expect(timeouts.map((t) => t.timeout_ms)).toEqual([1e15, 1e300]);
    // The event store keeps each event as it came.
    const [doc] = await ds.query<{ doc: RunEventDoc }[]>('SELECT doc FROM run_events WHERE event_id = $1', [
      `${runId}:3`,
    ]);
    expect((doc!.doc.payload as { initialTurn: { ts: number } }).initialTurn.ts).toBe(1e300);
  });

  it('a run marked broken holds its later events (never applied out of order) and shows why in its snapshot', async () => {
    const log = approvalRun('held');
    await apply(log.slice(0, 2));
    const error = {
      eventId: 'held:2',
      sequence: 2,
      type: 'interrupt.requested',
      reason: 'Error: test',
      at: '2026-11-22T00:00:03.000Z',
    };
    expect(await transaction(ds, (m) => markProjectionBroken(m, 'held', error))).toBe(true);
    expect(await transaction(ds, (m) => markProjectionBroken(m, 'held', error))).toBe(false); // marked once
    const held: number[] = [];
    const moved = await transaction(ds, (m) =>
      applyRunEvents(m, log.slice(2), { onHeld: (_, events) => held.push(...events.map((e) => e.sequence)) }),
    );
    expect(moved).toEqual([]);
    expect(held).toEqual([2, 3, 4, 5, 6, 7]);
    expect(await stored('held')).toEqual([0, 1]);
    const [row] = await ds.query<{ snapshot: { projectionError?: unknown } }[]>(
      'SELECT snapshot FROM runs WHERE run_id = $1',
      ['held'],
    );
    expect(row!.snapshot.projectionError).toEqual(error);
    // The repair replay applies them in order; the snapshot it writes carries no stale mark.
    expect(await transaction(ds, (m) => applyRunEvents(m, log.slice(2), { repair: true }))).toEqual([
      { runId: 'held', sequence: 7 },
    ]);
    expect(await stored('held')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
