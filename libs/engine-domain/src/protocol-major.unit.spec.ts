import type { RunEventDoc } from '@openwop/contracts';
import { forkSourceOf } from './fork-source';
import { decideFork } from './replay';
import { decideRun } from './run.decider';
import { initialRunState } from './run.state';
import { context, fixture, NOW, payloadOf, record, workflow } from './test-kit.spec';

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
