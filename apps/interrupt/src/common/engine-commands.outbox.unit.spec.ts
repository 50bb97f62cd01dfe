import { Headers, Topics, type CancelRunAtInterruptCommand } from '@openwop/contracts';
import type { InterruptState } from '@openwop/interrupt-domain';
import { forwardedCancel, resumeMessages } from './engine-commands.outbox';

const interrupt = {
  interruptId: 'r1:n:0',
  runId: 'r1',
  nodeId: 'n',
  tenant: 't1',
  kind: 'custom',
  key: 'r1:n:0',
  data: {},
  requestedAt: '2026-11-21T10:00:00.000Z',
} as const;
const cause = { id: 'cmd-1', correlationId: 'corr-1' };

describe('engine commands put in the outbox', () => {
  it('a resolved interrupt becomes run.resume with a deterministic id, keyed by run', () => {
    const state: InterruptState = {
      status: 'resolved',
      interrupt,
      notes: [],
      resumeValue: { ok: 1 },
      resolvedBy: 'alice',
      resolvedAt: '2026-11-21T10:01:00.000Z',
    };
    const [message] = resumeMessages(state, cause);
    expect(message).toEqual({
      topic: Topics.engineCommands,
      key: 'r1',
      headers: {
        [Headers.messageId]: 'resume:r1:n:0',
        [Headers.messageType]: 'run.resume',
        [Headers.correlationId]: 'corr-1',
      },
      value: {
        id: 'resume:r1:n:0',
        type: 'run.resume',
        occurredAt: '2026-11-21T10:01:00.000Z',
        correlationId: 'corr-1',
        causationId: 'cmd-1',
        actor: { tenant: 't1', principal: 'alice' },
        data: {
          runId: 'r1',
          nodeId: 'n',
          interruptId: 'r1:n:0',
          key: 'r1:n:0',
          outcome: 'resolved',
          resumeValue: { ok: 1 },
          resolvedBy: 'alice',
          resolvedAt: '2026-11-21T10:01:00.000Z',
        },
      },
    });
  });

  it('a pending or cancelled interrupt sends no resume', () => {
    expect(resumeMessages({ status: 'pending', interrupt, notes: [] }, cause)).toEqual([]);
    expect(resumeMessages({ status: 'cancelled', interrupt, notes: [], cancelledAt: 'x' }, cause)).toEqual(
      [],
    );
    expect(resumeMessages({ status: 'none' }, cause)).toEqual([]);
  });

  it('forwards run.cancel caused by the gateway command, same actor and correlation', () => {
    const command: CancelRunAtInterruptCommand = {
      id: 'c9',
      type: 'run.cancel',
      occurredAt: 'x',
      correlationId: 'corr-9',
      actor: { tenant: 't1', principal: 'bob' },
      data: { runId: 'r1', reason: 'stop' },
    };
    expect(forwardedCancel(command, 'now').value).toEqual({
      id: 'cancel:c9',
      type: 'run.cancel',
      occurredAt: 'now',
      correlationId: 'corr-9',
      causationId: 'c9',
      actor: { tenant: 't1', principal: 'bob' },
      data: { runId: 'r1', reason: 'stop' },
    });
  });
});
