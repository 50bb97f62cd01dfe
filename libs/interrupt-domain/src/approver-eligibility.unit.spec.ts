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

describe('a major-2 run always enforces its approvers, with RFC 0104 group and role refs (RFC 0173 §B)', () => {
  const v2 = (data: Record<string, unknown>) => opened('approval', approvalData(data), { protocolMajor: 2 });
  const as = (principal: string, over: Partial<ReturnType<typeof ctx>> = {}) => ctx(principal, over);
  const claim = (context: ReturnType<typeof ctx>): ClaimInterrupt => ({
    type: 'ClaimInterrupt',
    runId: 'r1',
    nodeId: 'gate',
    context,
  });

  it('binds approversList without approverPolicy; the same gate on a major-1 run stays advisory', () => {
    given(v2({ approversList: ['bob'] }))
      .when(resolveWith({ action: 'accept' }, 'mallory'))
      .thenRefuses('forbidden');
    given(v2({ approversList: ['bob'] }))
      .when(claim(as('mallory')))
      .thenRefuses('forbidden');
    expect(
      given(v2({ approversList: ['bob'] }))
        .when(resolveWith({ action: 'accept' }, 'bob'))
        .next().status,
    ).toBe('resolved');
    expect(
      given(opened('approval', approvalData({ approversList: ['bob'] })))
        .when(resolveWith({ action: 'accept' }, 'mallory'))
        .next().status,
    ).toBe('resolved');
  });

  it('approverPolicy: advisory relaxes nothing under major 2', () => {
    given(v2({ approversList: ['bob'], approverPolicy: 'advisory' }))
      .when(resolveWith({ action: 'accept' }, 'mallory'))
      .thenRefuses('forbidden');
  });

  it('admits a member of an approverGroupRefs group and a holder of an approverRoleRefs role, and no one else', () => {
    const gate = v2({ approverGroupRefs: ['finance'], approverRoleRefs: ['controller'] });
    const accept = (context: ReturnType<typeof ctx>) =>
      resolveWith({ action: 'accept' }, context.principal, { context });
    expect(
      given(gate)
        .when(accept(as('carol', { groups: ['finance'] })))
        .next().status,
    ).toBe('resolved');
    expect(
      given(gate)
        .when(accept(as('erin', { roles: ['controller'] })))
        .next().status,
    ).toBe('resolved');
    given(gate)
      .when(accept(as('dave', { groups: ['sales'], roles: ['clerk'] })))
      .thenRefuses('forbidden');
    // A group is not a role of the same name, nor a role a group.
    given(gate)
      .when(accept(as('dave', { groups: ['controller'], roles: ['finance'] })))
      .thenRefuses('forbidden');
    given(gate)
      .when(claim(as('dave', { groups: ['sales'] })))
      .thenRefuses('forbidden');
    expect(
      given(gate)
        .when(claim(as('erin', { roles: ['controller'] })))
        .events(),
    ).toHaveLength(1);
  });

  it('lists the entries it enforces; a major-1 gate never reads the refs, even when enforced', () => {
    const data = approvalData({
      approversList: ['alice', 'group:ops'],
      approverGroupRefs: ['finance'],
      approverRoleRefs: ['controller'],
    });
    expect(enforcedApprovers(facts('approval', data, { protocolMajor: 2 }))).toEqual([
      'alice',
      'group:ops',
      'group:finance',
      'role:controller',
    ]);
    expect(enforcedApprovers(facts('approval', data))).toBeUndefined();
    expect(enforcedApprovers(facts('approval', { ...data, approverPolicy: 'enforced' }))).toEqual([
      'alice',
      'group:ops',
    ]);
    expect(
      assertEligibleApprover(facts('approval', data, { protocolMajor: 2 }), {
        principal: 'erin',
        roles: ['controller'],
      }),
    ).toBe('role:controller');
  });

  it('a major-2 gate that names no approvers admits anyone; one enforced with an empty list admits nobody', () => {
    expect(enforcedApprovers(facts('approval', approvalData(), { protocolMajor: 2 }))).toBeUndefined();
    given(v2({ approversList: [] }))
      .when(resolveWith({ action: 'accept' }, 'alice'))
      .thenRefuses('forbidden');
    given(v2({ approverPolicy: 'enforced' }))
      .when(resolveWith({ action: 'accept' }, 'alice'))
      .thenRefuses('forbidden');
  });

  it('external events and conversations never enforce, whatever the major', () => {
    const data = { approversList: ['bob'], approverGroupRefs: ['finance'] };
    expect(
      enforcedApprovers(
        facts('external-event', { eventType: 'x', correlation: {}, ...data }, { protocolMajor: 2 }),
      ),
    ).toBeUndefined();
  });

  it('eligibility is judged once, at decision time: the recorded resolution stands whatever the membership later', () => {
    const gate = v2({ approverGroupRefs: ['finance'] });
    const resolved = given(gate)
      .when(resolveWith({ action: 'accept' }, 'carol', { context: as('carol', { groups: ['finance'] }) }))
      .events();
    // Folding the recorded events (replay, fork) takes no membership: carol's decision stands.
    const replayed = given(gate, ...resolved).state;
    expect(replayed.status).toBe('resolved');
    given(gate, ...resolved)
      .when(resolveWith({ action: 'reject' }, 'carol', { context: as('carol') }))
      .thenRefuses('interrupt_already_resolved');
  });
});
