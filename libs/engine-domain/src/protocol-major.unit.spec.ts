import type { RunEventDoc } from '@openwop/contracts';
import { forkSourceOf } from './fork-source';
import { decideFork } from './replay';
import { decideRun } from './run.decider';
import { initialRunState } from './run.state';
import { context, fixture, NOW, payloadOf, record, resume, types, workflow } from './test-kit.spec';

/** ADR 0041: a run keeps the protocol major it was created under, through fork and replay. */
describe('protocol major of a run', () => {
  const started = async (protocolMajor?: 2): Promise<RunEventDoc[]> =>
    (
      await decideRun(
        {
          type: 'StartRun',
          runId: 'src',
          workflow: fixture('conformance-identity'),
          inputs: { payload: 1 },
          ...(protocolMajor ? { protocolMajor } : {}),
          context: context('c0', NOW),
        },
        initialRunState(),
      )
    ).events;

  const forkOf = async (events: RunEventDoc[], mode: 'replay' | 'branch', fromSeq: number) => {
    const source = forkSourceOf(events, fromSeq, mode);
    return decideFork(
      {
        type: 'ForkRun',
        runId: 'fork',
        sourceRunId: 'src',
        mode,
        fromSeq,
        workflow: fixture('conformance-identity'),
        inputs: source.started.inputs ?? {},
        ...(source.started.protocolMajor ? { protocolMajor: source.started.protocolMajor } : {}),
        history: source.history,
        resolutions: source.resolutions,
        expected: source.expected,
        context: { commandId: 'f0', now: NOW, tenant: 't1', principal: 'p1' },
      },
      initialRunState(),
    );
  };

  it('a run created under major 2 says so on run.started; a major-1 run carries nothing (absent means 1)', async () => {
    expect(payloadOf(await started(2), 'run.started').protocolMajor).toBe(2);
    expect(payloadOf(await started(), 'run.started')).not.toHaveProperty('protocolMajor');
  });

  it.each([
    ['replay', 0],
    ['branch', 1],
  ] as const)(
    'a %s fork (fromSeq %i) keeps its source major, whichever major asked for it',
    async (mode, fromSeq) => {
      const v2 = await forkOf(await started(2), mode, fromSeq);
      expect(payloadOf(v2.events, 'run.started').protocolMajor).toBe(2);
      const v1 = await forkOf(await started(), mode, fromSeq);
      expect(payloadOf(v1.events, 'run.started')).not.toHaveProperty('protocolMajor');
      expect(forkSourceOf(await started(2), fromSeq, mode).started.protocolMajor).toBe(2);
    },
  );
});

/** RFC 0173 §B: a major-2 run's interrupts are opened as major-2 interrupts, whose approvers bind. */
describe('the interrupt a major-2 run opens', () => {
  const gate = (config: Record<string, unknown>) =>
    workflow([{ id: 'gate', typeId: 'core.approvalGate', config }]);
  const open = (config: Record<string, unknown>, protocolMajor?: 2) =>
    decideRun(
      {
        type: 'StartRun',
        runId: 'r1',
        workflow: gate(config),
        inputs: {},
        ...(protocolMajor ? { protocolMajor } : {}),
        context: context('c0', NOW),
      },
      initialRunState(),
    );

  it('says major 2 to the interrupt service (never on interrupt.requested); a major-1 run says nothing', async () => {
    const v2 = await open({ approversList: ['bob'] }, 2);
    expect(v2.openInterrupt).toMatchObject({ kind: 'approval', protocolMajor: 2 });
    expect(payloadOf(v2.events, 'interrupt.requested')).not.toHaveProperty('protocolMajor');
    expect(record(v2.state).protocolMajor).toBe(2);
    const v1 = await open({ approversList: ['bob'] });
    expect(v1.openInterrupt).not.toHaveProperty('protocolMajor');
    expect(record(v1.state)).not.toHaveProperty('protocolMajor');
  });

  it('carries RFC 0104 group and role refs unchanged on the approval data', async () => {
    const { events, openInterrupt } = await open(
      { approverGroupRefs: ['finance'], approverRoleRefs: ['controller'] },
      2,
    );
    expect(payloadOf(events, 'interrupt.requested').data).toMatchObject({
      approverGroupRefs: ['finance'],
      approverRoleRefs: ['controller'],
    });
    expect(openInterrupt?.data).toMatchObject({ approverGroupRefs: ['finance'] });
  });

  it.each([[['']], ['finance'], [[7]]])('fails the gate whose approverGroupRefs is %j', async (refs) => {
    const { events } = await open({ approverGroupRefs: refs }, 2);
    expect(payloadOf(events, 'node.failed')).toMatchObject({
      error: { code: 'validation_error', message: expect.stringContaining('/data/approverGroupRefs') },
    });
  });
});

/**
 * v2 interrupt.md §Events, events.md: on a major-2 run the kind-specific `approval.*` /
 * `clarification.*` events are `$ref` aliases of `interruptRequested` / `interruptResolved`; a
 * major-1 run keeps its v1 payloads (approval.unit.spec.ts, clarification.unit.spec.ts).
 */
describe('the alias events of a major-2 run', () => {
  const startUnder = (name: string, protocolMajor?: 2) =>
    decideRun(
      {
        type: 'StartRun',
        runId: 'r1',
        workflow: fixture(name),
        inputs: {},
        ...(protocolMajor ? { protocolMajor } : {}),
        context: context('c0', NOW),
      },
      initialRunState(),
    );
  const only = (events: readonly RunEventDoc[], type: string) => {
    const found = events.filter((e) => e.type === type);
    expect(found).toHaveLength(1);
    return found[0]!.payload;
  };

  it('approval: approval.requested carries interrupt.requested, approval.received carries interrupt.resolved', async () => {
    const started = await startUnder('conformance-approval', 2);
    expect(types(started.events)).toEqual([
      'run.started',
      'node.started',
      'interrupt.requested',
      'approval.requested',
      'node.suspended',
    ]);
    expect(only(started.events, 'approval.requested')).toEqual(only(started.events, 'interrupt.requested'));
    const resolved = await resume(started.state, { action: 'reject', decidedBy: 'alice' });
    expect(types(resolved.events).slice(0, 2)).toEqual(['interrupt.resolved', 'approval.received']);
    expect(only(resolved.events, 'approval.received')).toEqual(only(resolved.events, 'interrupt.resolved'));
    expect(only(resolved.events, 'approval.received')).toMatchObject({
      action: 'reject',
      decision: 'rejected',
    });

    const timedOut = await resume(started.state, null, { outcome: 'timeout' });
    expect(only(timedOut.events, 'approval.received')).toEqual(only(timedOut.events, 'interrupt.resolved'));
    expect(only(timedOut.events, 'approval.received')).toMatchObject({
      action: 'timeout',
      reason: 'timeout',
    });
  });

  it('approval: a vote is the host record (log.appended), never an approval.received; one alias per resolution', async () => {
    const { state } = await startUnder('conformance-approval', 2);
    const notes = [
      { type: 'vote', action: 'accept', decidedBy: 'bob', decidedAt: '2026-11-21T00:01:00.000Z' },
      { type: 'vote', action: 'accept', decidedBy: 'alice', decidedAt: '2026-11-21T00:02:00.000Z' },
    ];
    const { events } = await resume(state, { action: 'accept', decidedBy: 'alice' }, { notes });
    expect(types(events).slice(0, 4)).toEqual([
      'log.appended',
      'log.appended',
      'interrupt.resolved',
      'approval.received',
    ]);
    expect(events[0]!.nodeId).toBeUndefined();
    expect(events[0]!.payload).toMatchObject({
      nodeId: 'gate',
      fields: { interruptId: 'r1:gate:0', vote: { action: 'accept', decidedBy: 'bob' } },
    });
    expect(only(events, 'approval.received')).toEqual(only(events, 'interrupt.resolved'));
  });

  it('clarification: clarification.requested and clarification.resolved carry the interrupt events', async () => {
    const started = await startUnder('conformance-clarification', 2);
    expect(only(started.events, 'clarification.requested')).toEqual(
      only(started.events, 'interrupt.requested'),
    );
    const resolved = await resume(started.state, { answers: { q1: 'blue' } });
    expect(only(resolved.events, 'clarification.resolved')).toEqual(
      only(resolved.events, 'interrupt.resolved'),
    );
  });

  it('a major-1 run keeps the v1 alias payloads', async () => {
    const started = await startUnder('conformance-approval');
    expect(only(started.events, 'approval.requested')).toEqual({
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
      artifactId: 'r1:gate',
      artifactType: 'workflow-node',
      title: 'Conformance approval',
      description: 'Conformance suite — please accept to complete the run.',
      actions: ['accept', 'reject'],
    });
    const resolved = await resume(started.state, { action: 'accept', decidedBy: 'alice' });
    expect(only(resolved.events, 'approval.received')).toEqual({
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
      action: 'accept',
      decidedBy: 'alice',
      decidedAt: '2026-11-21T00:05:00.000Z',
    });
  });
});
