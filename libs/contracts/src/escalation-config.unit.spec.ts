import { MAX_ESCALATION_REMINDERS } from './escalation-config';
import { MAX_INTERRUPT_TIMEOUT_MS, workflowLimitProblems } from './limits';

const gate = (config: Record<string, unknown>) => ({
  id: 'w',
  nodes: [{ id: 'g', typeId: 'core.approvalGate', config }],
  edges: [],
});

describe('escalation config (workflow registration)', () => {
  it('accepts reminders, a reassignment and the reject default inside the timeout', () => {
    const escalation = {
      reminders: [{ afterMs: 2000 }, { afterMs: 3000 }],
      reassign: { afterMs: 4000, approvers: ['lead'] },
      defaultAction: 'reject',
    };
    expect(workflowLimitProblems(gate({ timeoutMs: 6000, escalation }))).toEqual([]);
    expect(
      workflowLimitProblems(gate({ escalation: { reassign: { afterMs: 10, group: 'finance' } } })),
    ).toEqual([]);
    expect(
      workflowLimitProblems(gate({ timeoutSec: 6, escalation: { reminders: [{ afterMs: 5999 }] } })),
    ).toEqual([]);
  });

  it('names every bad field by path', () => {
    const problems = workflowLimitProblems(
      gate({
        timeoutMs: 6000,
        escalation: {
          reminders: [{ afterMs: 0 }, { afterMs: 6000 }, 'x', { afterMs: 1, extra: true }],
          reassign: { afterMs: 1.5, approvers: [], group: 'g' },
          defaultAction: 'accept',
          other: 1,
        },
      }),
    );
    expect(problems.map((p) => p.path)).toEqual([
      '/nodes/0/config/escalation/other',
      '/nodes/0/config/escalation/reminders/0/afterMs',
      '/nodes/0/config/escalation/reminders/1/afterMs',
      '/nodes/0/config/escalation/reminders/2',
      '/nodes/0/config/escalation/reminders/3/extra',
      '/nodes/0/config/escalation/reassign/afterMs',
      '/nodes/0/config/escalation/reassign',
      '/nodes/0/config/escalation/reassign/approvers',
      '/nodes/0/config/escalation/defaultAction',
    ]);
    expect(problems[1]!.message).toBe(`must be an integer from 1 to ${MAX_INTERRUPT_TIMEOUT_MS}`);
    expect(problems[2]!.message).toMatch(/less than the gate's timeoutMs \(6000\)/);
    expect(problems[8]!.message).toMatch(/must be reject/);
  });

  it('bounds the reminders, needs a timeout for a default action, and refuses a non-object', () => {
    const many = Array.from({ length: MAX_ESCALATION_REMINDERS + 1 }, (_, i) => ({ afterMs: i + 1 }));
    expect(workflowLimitProblems(gate({ escalation: { reminders: many } })).map((p) => p.path)).toEqual([
      '/nodes/0/config/escalation/reminders',
    ]);
    expect(workflowLimitProblems(gate({ escalation: { defaultAction: 'reject' } }))[0]!.message).toMatch(
      /needs the node to have a timeoutMs/,
    );
    expect(workflowLimitProblems(gate({ escalation: [1] }))).toEqual([
      { path: '/nodes/0/config/escalation', message: 'must be an object' },
    ]);
  });

  it('takes a policy on a clarification gate or a custom node, whose default action is expire, and on no other node', () => {
    const node = (typeId: string, config: Record<string, unknown>) => ({
      id: 'w',
      nodes: [{ id: 'n', typeId, config }],
      edges: [],
    });
    const escalation = {
      reminders: [{ afterMs: 100 }],
      reassign: { afterMs: 200, group: 'finance' },
      defaultAction: 'expire',
    };
    expect(workflowLimitProblems(node('core.clarificationGate', { timeoutMs: 1000, escalation }))).toEqual(
      [],
    );
    expect(workflowLimitProblems(node('core.custom', { timeoutMs: 1000, escalation }))).toEqual([]);
    // Each kind's own timeout action only: reject is an approval gate's, expire everyone else's.
    expect(
      workflowLimitProblems(
        node('core.clarificationGate', { timeoutMs: 1000, escalation: { defaultAction: 'reject' } }),
      )[0],
    ).toMatchObject({
      path: '/nodes/0/config/escalation/defaultAction',
      message: expect.stringMatching(/must be expire/),
    });
    expect(
      workflowLimitProblems(gate({ timeoutMs: 1000, escalation: { defaultAction: 'expire' } }))[0]!.message,
    ).toMatch(/must be reject/);
    expect(
      workflowLimitProblems(node('core.externalEvent', { escalation: { reminders: [{ afterMs: 100 }] } })),
    ).toEqual([
      {
        path: '/nodes/0/config/escalation',
        message: expect.stringMatching(
          /is supported on core.approvalGate, core.clarificationGate, core.custom nodes, not core.externalEvent/,
        ),
      },
    ]);
  });
});
