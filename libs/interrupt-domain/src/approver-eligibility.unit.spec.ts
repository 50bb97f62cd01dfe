import { admittingEntry, assertEligibleApprover, enforcedApprovers } from './approver-eligibility';
import type { ClaimInterrupt } from './interrupt.commands';
import { approvalData, ctx, facts, given, opened, resolveWith } from './interrupt.given.spec';

const alice = { principal: 'alice', groups: ['finance', 'ops'] };

describe('admittingEntry: a principal named directly or through one of its groups', () => {
  it('prefers the principal named directly over a group that also admits it', () => {
    expect(admittingEntry(['group:finance', 'alice'], alice)).toBe('alice');
  });

  it('admits through the first group entry naming one of its groups', () => {
    expect(admittingEntry(['bob', 'group:ops', 'group:finance'], alice)).toBe('group:ops');
  });

  it('admits nobody else: no group, another group, or a principal whose name only looks like an entry', () => {
    expect(admittingEntry(['group:finance'], { principal: 'mallory' })).toBeUndefined();
    expect(admittingEntry(['group:finance'], { principal: 'mallory', groups: ['sales'] })).toBeUndefined();
    // A group named like a principal is still a group: "finance" the principal is not group:finance.
    expect(admittingEntry(['finance'], { principal: 'mallory', groups: ['finance'] })).toBeUndefined();
    // A principal literally called "group:finance" is admitted only by name, never as the group's member.
    expect(admittingEntry(['group:finance'], { principal: 'group:finance' })).toBe('group:finance');
    expect(admittingEntry([], alice)).toBeUndefined();
  });
});

describe('enforced approver lists admit group members (ADR 0035)', () => {
  const enforced = opened(
    'approval',
    approvalData({ approversList: ['group:finance'], approverPolicy: 'enforced' }),
  );
  const member = (principal: string, groups: readonly string[]) => ctx(principal, { groups });
  const claim = (context: ReturnType<typeof ctx>): ClaimInterrupt => ({
    type: 'ClaimInterrupt',
    runId: 'r1',
    nodeId: 'gate',
    context,
  });

  it('a member of a listed group resolves and claims; a non-member is refused with forbidden', () => {
    expect(
      given(enforced)
        .when(resolveWith({ action: 'accept' }, 'carol', { context: member('carol', ['finance']) }))
        .next().status,
    ).toBe('resolved');
    expect(
      given(enforced)
        .when(claim(member('carol', ['finance'])))
        .events(),
    ).toHaveLength(1);
    given(enforced)
      .when(resolveWith({ action: 'accept' }, 'dave', { context: member('dave', ['sales']) }))
      .thenRefuses('forbidden');
    given(enforced)
      .when(resolveWith({ action: 'accept' }, 'dave'))
      .thenRefuses('forbidden');
    given(enforced)
      .when(claim(member('dave', [])))
      .thenRefuses('forbidden');
  });

  it('the answer records the principal, not the group, as who decided', () => {
    const resolved = given(enforced)
      .when(resolveWith({ action: 'accept' }, 'carol', { context: member('carol', ['finance']) }))
      .events();
    expect(resolved.find((e) => e.type === 'interrupt.resolved')?.data).toMatchObject({
      resolvedBy: 'carol',
    });
  });

  it('returns the admitting entry of an enforced list, nothing for an advisory one', () => {
    const gate = facts(
      'approval',
      approvalData({ approversList: ['alice', 'group:finance'], approverPolicy: 'enforced' }),
    );
    expect(assertEligibleApprover(gate, { principal: 'carol', groups: ['finance'] })).toBe('group:finance');
    expect(assertEligibleApprover(gate, alice)).toBe('alice');
    expect(
      assertEligibleApprover(facts('approval', approvalData({ approversList: ['bob'] })), alice),
    ).toBeUndefined();
  });

  it('clarification and custom interrupts may enforce their list too; external events and conversations never do', () => {
    const data = { approversList: ['group:finance'], approverPolicy: 'enforced' };
    expect(enforcedApprovers(facts('clarification', { questions: [], ...data }))).toEqual(['group:finance']);
    expect(enforcedApprovers(facts('custom', { customKind: 'x', payload: null, ...data }))).toEqual([
      'group:finance',
    ]);
    expect(
      enforcedApprovers(facts('external-event', { eventType: 'x', correlation: {}, ...data })),
    ).toBeUndefined();
    expect(
      enforcedApprovers(facts('conversation.exchange', { conversationId: 'c', prompt: 'p', ...data })),
    ).toBeUndefined();
  });
});
