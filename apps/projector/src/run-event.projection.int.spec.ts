import type { DataSource } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
import { openDatabase, transaction } from '@openwop/platform-db';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { applyRunEvents, SequenceGapError } from './run-event.projection';

const ev = (runId: string, sequence: number, type: RunEventDoc['type'], payload: unknown = {}, nodeId?: string): RunEventDoc => ({
  eventId: `${runId}:${sequence}`,
  runId,
  type,
  payload,
  sequence,
  timestamp: `2026-11-22T00:00:0${sequence}.000Z`,
  ...(nodeId ? { nodeId } : {}),
});

/** An approval run's log: suspended after event 3, completed after event 7. */
const approvalRun = (runId: string): RunEventDoc[] => [
  ev(runId, 0, 'run.started', { workflowId: 'wf', owner: { tenant: 't1' } }),
  ev(runId, 1, 'node.started', { nodeId: 'gate', typeId: 'core.approval' }, 'gate'),
  ev(
    runId,
    2,
    'interrupt.requested',
    { runId, nodeId: 'gate', interruptId: `${runId}:gate:0`, kind: 'approval', key: `${runId}:gate:0`, data: {}, requestedAt: '2026-11-22T00:00:02.000Z' },
    'gate',
  ),
  ev(runId, 3, 'node.suspended', { nodeId: 'gate', kind: 'approval', reason: 'approval' }, 'gate'),
  ev(runId, 4, 'interrupt.resolved', { interruptId: `${runId}:gate:0` }, 'gate'),
  ev(runId, 5, 'node.resumed', {}, 'gate'),
  ev(runId, 6, 'node.completed', { nodeId: 'gate' }, 'gate'),
  ev(runId, 7, 'run.completed', { outputs: {} }),
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
      await ds.query<{ sequence: number }[]>('SELECT sequence FROM run_events WHERE run_id = $1 ORDER BY sequence', [runId])
    ).map((r) => r.sequence);
  const pending = async (runId: string) =>
    (await ds.query<{ interrupt_id: string }[]>('SELECT interrupt_id FROM pending_interrupts WHERE run_id = $1', [runId])).map(
      (r) => r.interrupt_id,
    );

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
});
