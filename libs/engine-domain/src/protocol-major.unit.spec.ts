import type { RunEventDoc } from '@openwop/contracts';
import { forkSourceOf } from './fork-source';
import { decideFork } from './replay';
import { decideRun } from './run.decider';
import { initialRunState } from './run.state';
import { context, fixture, NOW, payloadOf } from './test-kit.spec';

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
