import { ctx, approvalData, given, opened, resolveWith } from './interrupt.given.spec';
import type { InterruptEvent } from './interrupt.events';
import { majorityRejections } from './approval/approval-quorum.policy';

const panel = opened(
  'approval',
  approvalData({
    requiredApprovals: 3,
    rejectionPolicy: 'majority',
    approversList: [],
    voterAttribution: 'attested',
  }),
);

/** One caller (`bot`) relays the votes of named voters, in order. */
function relay(...steps: [voter: string | undefined, action: string][]) {
  let events: InterruptEvent[] = [panel];
  return steps.map(([voter, action]) => {
    const step = given(...events).when(
      resolveWith({ action, ...(voter !== undefined ? { voter } : {}) }, 'bot'),
    );
    events = [...events, ...step.events()];
    return step.next();
  });
}

describe('openwop-interrupt-quorum: attested voters, majority of the panel', () => {
  it('rejects close at a majority of requiredApprovals', () => {
    expect([1, 2, 3, 4, 5].map(majorityRejections)).toEqual([1, 2, 2, 3, 3]);
  });

  it('counts each attested voter once: two accepts stay pending, the third resolves, the caller is decidedBy', () => {
    const [one, two, three] = relay(
      ['approver-1', 'accept'],
      ['approver-2', 'accept'],
      ['approver-3', 'accept'],
    );
    expect(one?.status).toBe('pending');
    expect(two?.status).toBe('pending');
    expect(three).toMatchObject({
      status: 'resolved',
      resumeValue: { action: 'accept', voter: 'approver-3', decidedBy: 'bot' },
    });
    expect((three as { resumeValue: { votes: unknown[] } }).resumeValue.votes).toEqual([
      expect.objectContaining({ voter: 'approver-1', decidedBy: 'bot' }),
      expect.objectContaining({ voter: 'approver-2', decidedBy: 'bot' }),
      expect.objectContaining({ voter: 'approver-3', decidedBy: 'bot' }),
    ]);
  });

  it('two rejects of three close the gate rejected; one does not', () => {
    const [first, second] = relay(['approver-1', 'reject'], ['approver-2', 'reject']);
    expect(first?.status).toBe('pending');
    expect(second).toMatchObject({ status: 'resolved', resumeValue: { action: 'reject' } });
  });

  it('a voter votes once; a vote naming no voter counts for the caller', () => {
    const events = [
      panel,
      ...given(panel)
        .when(resolveWith({ action: 'accept', voter: 'v1' }, 'bot'))
        .events(),
    ];
    given(...events)
      .when(resolveWith({ action: 'reject', voter: 'v1' }, 'bot'))
      .thenRefuses('validation_error');
    const [, self] = relay(['v1', 'accept'], [undefined, 'accept']);
    expect(self?.status === 'pending' && self.notes).toEqual([
      expect.objectContaining({ voter: 'v1', decidedBy: 'bot' }),
      expect.not.objectContaining({ voter: expect.anything() as unknown }),
    ]);
  });

  it('refuses a blank voter; a gate without voterAttribution ignores voter and counts principals', () => {
    given(panel)
      .when(resolveWith({ action: 'accept', voter: '  ' }, 'bot'))
      .thenRefuses('validation_error');
    const plain = opened('approval', approvalData({ requiredApprovals: 2 }));
    const events = [
      plain,
      ...given(plain)
        .when(resolveWith({ action: 'accept', voter: 'a' }, 'bot'))
        .events(),
    ];
    given(...events)
      .when(resolveWith({ action: 'accept', voter: 'b' }, 'bot'))
      .thenRefuses('validation_error');
  });
});

describe('openwop-interrupt-external-event: the bare event is matched on the correlation keys', () => {
  const order = opened('external-event', {
    eventType: 'order.status.changed',
    correlation: { orderId: 'o-1', status: 'completed' },
  });

  it('resolves with {eventPayload: event} when every key matches', () => {
    const event = { orderId: 'o-1', status: 'completed', externalReference: 'x' };
    expect(given(order).when(resolveWith(event)).next()).toMatchObject({
      status: 'resolved',
      resumeValue: { eventPayload: event },
    });
  });

  it('refuses another value with correlation_mismatch, and a missing key with validation_error; the interrupt stays pending', () => {
    given(order)
      .when(resolveWith({ orderId: 'o-2', status: 'completed' }))
      .thenRefuses('correlation_mismatch', { mismatchedKeys: ['orderId'] });
    const missing = given(order)
      .when(resolveWith({ orderId: 'o-1' }))
      .thenRefuses('validation_error');
    expect(missing.details).toMatchObject({ errors: [{ path: '/status' }] });
    expect(given(order).state.status).toBe('pending');
  });

  it('an interrupt without correlation keys still needs eventPayload', () => {
    const bare = opened('external-event', { eventType: 'x', correlation: {} });
    given(bare)
      .when(resolveWith({ anything: 1 }))
      .thenRefuses('validation_error');
  });
});

describe('openwop-interrupt-auth-required and cascade-cancel', () => {
  const guarded = opened('approval', approvalData({ resolveAuth: 'bearer' }));

  it('refuses a callback token (403 forbidden) and accepts the run-scoped bearer resolve', () => {
    given(guarded)
      .when(resolveWith({ action: 'accept' }, 'token:k1', { via: 'token' }))
      .thenRefuses('forbidden');
    expect(
      given(guarded)
        .when(resolveWith({ action: 'accept' }, 'alice', { via: 'api' }))
        .next().status,
    ).toBe('resolved');
    expect(
      given(opened('approval', approvalData()))
        .when(resolveWith({ action: 'accept' }, 't', { via: 'token' }))
        .next().status,
    ).toBe('resolved');
  });

  it('an interrupt cancelled by its parent is gone (410); a direct cancel is interrupt_already_resolved (409)', () => {
    const gate = opened('approval', approvalData());
    const cascaded = given(gate)
      .when({ type: 'CancelInterrupt', reason: 'parent-cancelled', parentRunId: 'p1', context: ctx() })
      .events();
    given(gate, ...cascaded)
      .when(resolveWith({ action: 'accept' }))
      .thenRefuses('interrupt_gone', { parentRunId: 'p1' });
    const direct = given(gate)
      .when({ type: 'CancelInterrupt', reason: 'parent-cancelled', context: ctx() })
      .events();
    given(gate, ...direct)
      .when(resolveWith({ action: 'accept' }))
      .thenRefuses('interrupt_already_resolved', { status: 'cancelled' });
  });
});
