import {
  assertRunEvent,
  comparableRunEvent,
  type ForkMode,
  type RunEventDoc,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { BUILTIN_NODES } from './builtin-nodes';
import { createNodeRegistry, type NodeRegistry } from './executor';
import { defineNode, type NodeModule } from './node';
import { forkSourceOf } from './fork-source';
import { decideFork } from './replay';
import { decideRun, type RunDecision } from './run.decider';
import { initialRunState, type RunRecord, type RunState } from './run.state';
import { context, fixture, LATER, NOW, payloadOf, record, types, workflow } from './test-kit.spec';

const SRC = 'src-run';
const FORK = 'fork-run';

/** A source run: started, then resumed with each answer in turn; all its events. */
async function sourceRun(
  wf: WorkflowDefinition,
  answers: ({ value: unknown } | { timeout: true })[] = [],
  nodes?: NodeRegistry,
): Promise<{ events: RunEventDoc[]; state: RunState }> {
  let d: RunDecision = await decideRun(
    { type: 'StartRun', runId: SRC, workflow: wf, inputs: { topic: 'x' }, context: context('s0', NOW) },
    initialRunState(),
    nodes,
  );
  const events = [...d.events];
  for (const [i, a] of answers.entries()) {
    const pending = record(d.state).pending!;
    const timeout = 'timeout' in a;
    d = await decideRun(
      {
        type: 'ResumeRun',
        runId: SRC,
        interruptId: pending.interruptId,
        outcome: timeout ? 'timeout' : 'resolved',
        ...(timeout ? {} : { resumeValue: a.value }),
        resolvedBy: timeout ? 'system:timer' : 'alice',
        resolvedAt: LATER,
        context: context(`s${i + 1}`, LATER),
      },
      d.state,
      nodes,
    );
    events.push(...d.events);
  }
  return { events, state: d.state };
}

/** Forks `events` the way the gateway and engine do: split by `forkSourceOf`, decided by `decideFork`. */
function fork(
  wf: WorkflowDefinition,
  events: readonly RunEventDoc[],
  options: {
    mode?: ForkMode;
    fromSeq?: number;
    nodes?: NodeRegistry;
    metadata?: Record<string, unknown>;
  } = {},
): Promise<RunDecision> {
  const mode = options.mode ?? 'replay';
  const fromSeq = options.fromSeq ?? 0;
  const source = forkSourceOf(events, fromSeq, mode);
  return decideFork(
    {
      type: 'ForkRun',
      runId: FORK,
      sourceRunId: SRC,
      mode,
      fromSeq,
      workflow: wf,
      inputs: { topic: 'x' },
      ...(options.metadata ? { metadata: options.metadata } : {}),
      ...source,
      context: { commandId: 'f0', now: '2026-12-01T00:00:00.000Z', tenant: 't1', principal: 'p1' },
    },
    initialRunState(),
    options.nodes,
  );
}

const comparable = (events: readonly RunEventDoc[]) =>
  events
    .map(comparableRunEvent)
    .filter((e) => e !== undefined)
    .map(({ type, nodeId, payload }) => ({ type, nodeId, payload }));

/** A registry with the built-ins plus `test.node` running `execute`. */
const withNode = (execute: NodeModule['execute']) =>
  createNodeRegistry([...BUILTIN_NODES, defineNode({ typeId: 'test.node', execute })]);
const single = workflow([{ id: 'n', typeId: 'test.node' }, { id: 'after' }], [['n', 'after']]);
const asks = (key: string, result: (v: unknown) => Record<string, unknown> = (v) => ({ got: v })) =>
  withNode(async (ctx) => result(await ctx.interrupt({ kind: 'custom', key, data: { customKind: 'q' } })));

describe('fork in replay mode', () => {
  it('given an accepted approval run, when replayed from 0, then it completes without asking and matches the source modulo the wait', async () => {
    const wf = fixture('conformance-approval');
    const source = await sourceRun(wf, [{ value: { action: 'accept', decidedBy: 'alice' } }]);
    expect(types(source.events)).toContain('interrupt.requested');

    const { events, state, openInterrupt } = await fork(wf, source.events);

    expect(openInterrupt).toBeUndefined();
    expect(record(state).status).toBe('completed');
    expect(types(events)).toEqual(['run.started', 'node.started', 'node.completed', 'run.completed']);
    expect(events.every((e) => e.runId === FORK)).toBe(true);
    expect(payloadOf(events, 'run.started')).toMatchObject({
      forkedFrom: { runId: SRC, fromSeq: 0, mode: 'replay' },
      owner: { tenant: 't1', principal: 'p1' },
    });
    expect(comparable(events)).toEqual(comparable(source.events));
    for (const e of events) assertRunEvent(e);
    expect(payloadOf(events, 'node.completed').outputs).toEqual(
      payloadOf(source.events, 'node.completed').outputs,
    );
  });

  it('replays a rejected approval to the same failure, and a timed-out one to the timeout rejection, asking nobody', async () => {
    const rejected = await sourceRun(fixture('conformance-approval'), [{ value: { action: 'reject' } }]);
    const r = await fork(fixture('conformance-approval'), rejected.events);
    expect(record(r.state).status).toBe('failed');
    expect(payloadOf(r.events, 'run.failed')).toEqual(payloadOf(rejected.events, 'run.failed'));
    expect(types(r.events)).not.toContain('replay.diverged');

    const timedOut = await sourceRun(fixture('conformance-approval-timeout'), [{ timeout: true }]);
    const t = await fork(fixture('conformance-approval-timeout'), timedOut.events);
    expect(record(t.state).status).toBe('failed');
    expect(payloadOf(t.events, 'node.failed')).toMatchObject({ error: { code: 'approval_rejected' } });
    expect(types(t.events)).not.toContain('interrupt.requested');
    expect(types(t.events)).not.toContain('replay.diverged');
  });

  it('replays a loop with one answer per visit (derived keys carry the run id and the visit)', async () => {
    const wf = fixture('conformance-approval-reject-loopback');
    const source = await sourceRun(wf, [{ value: { action: 'reject' } }, { value: { action: 'accept' } }]);
    expect(record(source.state).status).toBe('completed');
    const { events, state } = await fork(wf, source.events);
    expect(record(state).status).toBe('completed');
    expect(Object.keys(record(state).resolutions).sort()).toEqual([`${FORK}:gate:0`, `${FORK}:gate:1:0`]);
    expect(comparable(events)).toEqual(comparable(source.events));
    expect(types(events)).not.toContain('interrupt.requested');
  });

  it('replays an answered clarification', async () => {
    const wf = fixture('conformance-clarification');
    const source = await sourceRun(wf, [{ value: { answers: { q1: 'blue' } } }]);
    const { events, state } = await fork(wf, source.events);
    expect(record(state).status).toBe('completed');
    expect(comparable(events)).toEqual(comparable(source.events));
  });

  it('a source still waiting: the replay asks the same question again and waits, with no divergence', async () => {
    const wf = fixture('conformance-approval');
    const source = await sourceRun(wf);
    const { events, state, openInterrupt } = await fork(wf, source.events);
    expect(record(state).status).toBe('suspended');
    expect(openInterrupt).toMatchObject({
      runId: FORK,
      interruptId: `${FORK}:gate:0`,
      key: `${FORK}:gate:0`,
      kind: 'approval',
    });
    expect(types(events)).not.toContain('replay.diverged');
  });

  it('given code that now returns different outputs, reports replay.diverged once, right after the diverging event, and runs on', async () => {
    const source = await sourceRun(single, [{ value: 1 }], asks('k'));
    const { events, state } = await fork(single, source.events, {
      nodes: asks('k', (v) => ({ got: v, extra: true })),
    });
    expect(record(state).status).toBe('completed');
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'node.completed',
      'replay.diverged',
      'node.started',
      'node.completed',
      'run.completed',
    ]);
    const completed = events.find((e) => e.type === 'node.completed')!;
    const original = source.events.find((e) => e.type === 'node.completed' && e.nodeId === 'n')!;
    expect(payloadOf(events, 'replay.diverged')).toEqual({
      sourceRunId: SRC,
      atSequence: completed.sequence,
      divergenceKind: 'output',
      divergencePoint: 'node.completed',
      replayEventId: completed.eventId,
      originalEventId: original.eventId,
      originalSequence: original.sequence,
      nodeId: 'n',
    });
    for (const e of events) assertRunEvent(e);
  });

  it('given code that now asks a key the source never answered, the replay waits on it and reports the source event it misses', async () => {
    const source = await sourceRun(single, [{ value: 1 }], asks('k1'));
    const { events, state, openInterrupt } = await fork(single, source.events, { nodes: asks('k2') });
    expect(record(state).status).toBe('suspended');
    expect(openInterrupt).toMatchObject({ key: 'k2' });
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'interrupt.requested',
      'node.suspended',
      'replay.diverged',
    ]);
    const original = source.events.find((e) => e.type === 'node.completed' && e.nodeId === 'n')!;
    expect(payloadOf(events, 'replay.diverged')).toMatchObject({
      divergenceKind: 'missing',
      divergencePoint: 'node.completed',
      originalEventId: original.eventId,
      waitingOnKey: 'k2',
      replayEventId: events.find((e) => e.type === 'node.suspended')!.eventId,
    });
  });

  it('given a different event type at the same place, reports a type-mismatch; a terminal event stays last', async () => {
    const source = await sourceRun(
      workflow([{ id: 'n', typeId: 'test.node' }]),
      [],
      withNode(async () => ({ ok: 1 })),
    );
    const failing = withNode(async () => {
      throw new Error('boom');
    });
    const { events } = await fork(workflow([{ id: 'n', typeId: 'test.node' }]), source.events, {
      nodes: failing,
    });
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'node.failed',
      'replay.diverged',
      'run.failed',
    ]);
    expect(payloadOf(events, 'replay.diverged')).toMatchObject({
      divergenceKind: 'type-mismatch',
      divergencePoint: 'node.failed',
    });

    const extra = withNode(async (ctx) => {
      ctx.emit('log.appended', { level: 'info', message: 'new' });
      return { ok: 1 };
    });
    const e2 = (await fork(workflow([{ id: 'n', typeId: 'test.node' }]), source.events, { nodes: extra }))
      .events;
    expect(types(e2)).toEqual([
      'run.started',
      'node.started',
      'log.appended',
      'replay.diverged',
      'node.completed',
      'run.completed',
    ]);
  });

  it('reports a terminal event the source never reached before writing it', async () => {
    const wf = workflow([{ id: 'n', typeId: 'test.node' }]);
    const source = await sourceRun(wf, [{ value: 1 }], asks('k'));
    const longer = workflow([{ id: 'n', typeId: 'test.node' }, { id: 'more' }], [['n', 'more']]);
    const { events } = await fork(longer, source.events, { nodes: asks('k') });
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'node.completed',
      'node.started',
      'replay.diverged',
      'node.completed',
      'run.completed',
    ]);
    expect(payloadOf(events, 'replay.diverged')).toMatchObject({
      divergenceKind: 'type-mismatch',
      divergencePoint: 'node.started',
    });

    const shorter = await fork(wf, (await sourceRun(longer, [{ value: 1 }], asks('k'))).events, {
      nodes: asks('k'),
    });
    expect(types(shorter.events)).toEqual([
      'run.started',
      'node.started',
      'node.completed',
      'replay.diverged',
      'run.completed',
    ]);
    const diverged = payloadOf(shorter.events, 'replay.diverged');
    const completed = shorter.events.find((e) => e.type === 'run.completed')!;
    expect(diverged).toMatchObject({
      divergenceKind: 'type-mismatch',
      divergencePoint: 'run.completed',
      replayEventId: completed.eventId,
      atSequence: completed.sequence,
    });
  });

  it('from a sequence inside the wait: copies the history with rebased ids, records the source resolution, completes', async () => {
    const wf = fixture('conformance-approval');
    const source = await sourceRun(wf, [{ value: { action: 'accept' } }]);
    const fromSeq = source.events.find((e) => e.type === 'interrupt.resolved')!.sequence;
    const { events, state, openInterrupt } = await fork(wf, source.events, { fromSeq });
    expect(openInterrupt).toBeUndefined();
    expect(record(state).status).toBe('completed');
    expect(types(events)).toEqual(types(source.events));
    expect(events.map((e) => e.sequence)).toEqual(source.events.map((e) => e.sequence));
    expect(payloadOf(events, 'interrupt.requested')).toMatchObject({
      interruptId: `${FORK}:gate:0`,
      key: `${FORK}:gate:0`,
      runId: FORK,
    });
    expect(payloadOf(events, 'interrupt.resolved')).toMatchObject({
      resolvedBy: 'alice',
      resolvedAt: LATER,
      key: `${FORK}:gate:0`,
    });
    expect(payloadOf(events, 'run.started').forkedFrom).toEqual({ runId: SRC, fromSeq, mode: 'replay' });
    expect(types(events)).not.toContain('replay.diverged');
  });

  it('from a sequence past the wait: re-executes the resumed node, which consumes the inherited answer', async () => {
    const wf = fixture('conformance-approval');
    const source = await sourceRun(wf, [{ value: { action: 'accept' } }]);
    const fromSeq = source.events.find((e) => e.type === 'node.completed')!.sequence;
    const { events, state } = await fork(wf, source.events, { fromSeq });
    expect(record(state).status).toBe('completed');
    expect(types(events)).toEqual(types(source.events));
    expect(types(events)).not.toContain('replay.diverged');
  });

  it('refuses an existing run id and a history that is not the source prefix', async () => {
    const wf = fixture('conformance-approval');
    const source = await sourceRun(wf, [{ value: { action: 'accept' } }]);
    const existing = await fork(wf, source.events);
    const base = {
      type: 'ForkRun' as const,
      runId: FORK,
      sourceRunId: SRC,
      mode: 'replay' as const,
      workflow: wf,
      inputs: {},
      resolutions: {},
      expected: [],
      context: context(),
    };
    await expect(decideFork({ ...base, fromSeq: 0, history: [] }, existing.state)).rejects.toMatchObject({
      code: 'run_already_exists',
    });
    await expect(
      decideFork({ ...base, fromSeq: 2, history: source.events.slice(1, 3) }, initialRunState()),
    ).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(
      decideFork({ ...base, fromSeq: 3, history: source.events.slice(0, 2) }, initialRunState()),
    ).rejects.toMatchObject({
      code: 'validation_error',
    });
  });
});

describe('fork in branch mode', () => {
  it('from the resolution of a wait: the fork waits on the inherited interrupt, and a different answer takes the other path', async () => {
    const wf = fixture('conformance-approval');
    const source = await sourceRun(wf, [{ value: { action: 'accept' } }]);
    const fromSeq = source.events.find((e) => e.type === 'interrupt.resolved')!.sequence;
    const branched = await fork(wf, source.events, { mode: 'branch', fromSeq });
    expect(record(branched.state).status).toBe('suspended');
    expect(branched.openInterrupt).toMatchObject({
      runId: FORK,
      interruptId: `${FORK}:gate:0`,
      kind: 'approval',
    });
    expect(types(branched.events)).toEqual(types(source.events.slice(0, fromSeq)));

    const pending = record(branched.state).pending!;
    const rejected = await decideRun(
      {
        type: 'ResumeRun',
        runId: FORK,
        interruptId: pending.interruptId,
        outcome: 'resolved',
        resumeValue: { action: 'reject' },
        resolvedBy: 'bob',
        resolvedAt: LATER,
        context: context('f1', LATER),
      },
      branched.state,
    );
    expect(record(rejected.state).status).toBe('failed');
  });

  it('from 0 with a configurable overlay: answers are not reused, the options apply, nothing is compared', async () => {
    const wf = fixture('conformance-approval');
    const source = await sourceRun(wf, [{ value: { action: 'accept' } }]);
    const metadata = { configurable: { recursionLimit: 7 } };
    const { events, state, openInterrupt } = await fork(wf, source.events, { mode: 'branch', metadata });
    expect(openInterrupt).toMatchObject({ key: `${FORK}:gate:0` });
    expect((state as RunRecord).options.recursionLimit).toBe(7);
    expect(payloadOf(events, 'run.started')).toMatchObject({
      metadata,
      forkedFrom: { mode: 'branch', fromSeq: 0 },
    });
    expect(types(events)).not.toContain('replay.diverged');
  });
});
