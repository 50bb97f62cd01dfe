import { decideRun, type RecordEscalation } from './run.decider';
import type { RunState } from './run.state';
import { context, fixture, LATER, payloadOf, resume, start, types, workflow } from './test-kit.spec';

const escalate = (state: RunState, over: Partial<RecordEscalation> = {}) =>
  decideRun(
    {
      type: 'RecordEscalation',
      runId: 'r1',
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
      eventType: 'interrupt.reminded',
      payload: { step: 0, ageMs: 2000 },
      context: context('escalate:r1:gate:0:0', LATER),
      ...over,
    },
    state,
  );

describe('run decider: RecordEscalation (ADR 0034)', () => {
  it('appends the step to the log of a run waiting on that interrupt, naming node and interrupt', async () => {
    const { state } = await start(fixture('conformance-approval'));
    const reminded = await escalate(state);
    expect(types(reminded.events)).toEqual(['interrupt.reminded']);
    expect(payloadOf(reminded.events, 'interrupt.reminded')).toEqual({
      step: 0,
      ageMs: 2000,
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
    });
    expect(reminded.events[0]).toMatchObject({ nodeId: 'gate', timestamp: LATER });
    const reassigned = await escalate(reminded.state, {
      eventType: 'interrupt.reassigned',
      payload: { step: 1, ageMs: 4000, approvers: ['lead'] },
      context: context('escalate:r1:gate:0:1', LATER),
    });
    expect(types(reassigned.events)).toEqual(['interrupt.reassigned']);
    expect(reassigned.events[0]!.sequence).toBe(reminded.events[0]!.sequence + 1);
  });

  it('appends nothing for another interrupt, or once the wait is over', async () => {
    const { state } = await start(fixture('conformance-approval'));
    expect((await escalate(state, { interruptId: 'r1:gate:9' })).events).toEqual([]);
    const answered = await resume(state, { action: 'accept' });
    expect((await escalate(answered.state)).events).toEqual([]);
    const done = await start(workflow([{ id: 'a' }]));
    expect((await escalate(done.state)).events).toEqual([]);
  });
});

describe('run decider: RecordEscalation of a claim change (ADR 0035)', () => {
  it('appends interrupt.claimed and interrupt.released while the run waits on that interrupt, nothing after', async () => {
    const { state } = await start(fixture('conformance-approval'));
    const claimed = await escalate(state, {
      eventType: 'interrupt.claimed',
      payload: { claimedBy: 'alice', expiresAt: LATER },
      context: context('claim:r1:gate:0:c1', LATER),
    });
    expect(types(claimed.events)).toEqual(['interrupt.claimed']);
    expect(payloadOf(claimed.events, 'interrupt.claimed')).toEqual({
      claimedBy: 'alice',
      expiresAt: LATER,
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
    });
    const released = await escalate(claimed.state, {
      eventType: 'interrupt.released',
      payload: { previousClaimant: 'alice', reason: 'expired' },
      context: context('claim:r1:gate:0:c2', LATER),
    });
    expect(types(released.events)).toEqual(['interrupt.released']);
    const answered = await resume(released.state, { action: 'accept' });
    expect(
      (
        await escalate(answered.state, {
          eventType: 'interrupt.claimed',
          payload: { claimedBy: 'bob', expiresAt: LATER },
        })
      ).events,
    ).toEqual([]);
  });
});
