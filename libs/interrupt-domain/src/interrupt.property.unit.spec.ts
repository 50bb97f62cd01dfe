import fc from 'fast-check';
import { DomainError } from '@openwop/kernel';
import type { InterruptCommand } from './interrupt.commands';
import { decideInterrupt } from './interrupt.decider';
import { TERMINAL_INTERRUPT_EVENTS, type InterruptEvent } from './interrupt.events';
import { evolveInterrupt, initialInterruptState, type InterruptState } from './interrupt.state';
import { approvalData, ctx, opened, resolveWith } from './interrupt.given.spec';

const principal = fc.constantFrom('alice', 'bob', 'carol', 'dave');
const resumeValue = fc.oneof(
  fc.constantFrom('accept', 'reject', 'refine', 'edit-accept', 'ask').map((action) => ({
    action,
    feedback: 'f',
    question: 'q?',
    editedArtifactData: { v: 1 },
  })),
  fc.constantFrom(
    { decision: 'approved' },
    { decision: 'rejected', feedback: 'no' },
    { decision: 'timeout' },
    { action: 'nope' },
    null,
  ),
);
const command: fc.Arbitrary<InterruptCommand> = fc.oneof(
  fc
    .tuple(principal, resumeValue, fc.constantFrom('t1', 't2'))
    .map(([who, value, tenant]) => ({ ...resolveWith(value, who), context: ctx(who, { tenant }) })),
  fc.constant<InterruptCommand>({ type: 'ExpireInterrupt', interruptId: 'r1:gate:0', context: ctx('timer') }),
  fc.constant<InterruptCommand>({ type: 'CancelInterrupt', context: ctx('gateway') }),
);
const gate = fc.record({
  requiredApprovals: fc.integer({ min: 1, max: 3 }),
  rejectionPolicy: fc.constantFrom('single-veto', 'majority'),
});

const isTerminal = (e: InterruptEvent) => (TERMINAL_INTERRUPT_EVENTS as readonly string[]).includes(e.type);

describe('interrupt decider properties', () => {
  it('any sequence of resolve/expire/cancel emits at most one terminal decision, and never returns to pending', () => {
    fc.assert(
      fc.property(gate, fc.array(command, { maxLength: 25 }), (policy, commands) => {
        let state: InterruptState = [opened('approval', approvalData(policy))].reduce(
          evolveInterrupt,
          initialInterruptState(),
        );
        let terminals = 0;
        for (const cmd of commands) {
          const before = state.status;
          let events: InterruptEvent[] = [];
          try {
            events = decideInterrupt(cmd, state);
          } catch (e) {
            if (!(e instanceof DomainError)) throw e;
          }
          terminals += events.filter(isTerminal).length;
          state = events.reduce(evolveInterrupt, state);
          if (before !== 'pending') expect(state.status).toBe(before);
          if (before !== 'pending') expect(events).toEqual([]);
        }
        expect(terminals).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });

  it('a refused command decides nothing: refusals are whole', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 10 }), (commands) => {
        let state: InterruptState = [opened('approval', approvalData({ requiredApprovals: 2 }))].reduce(
          evolveInterrupt,
          initialInterruptState(),
        );
        for (const cmd of commands) {
          try {
            state = decideInterrupt(cmd, state).reduce(evolveInterrupt, state);
          } catch (e) {
            expect(e).toBeInstanceOf(DomainError);
          }
        }
        // Every recorded vote is by a distinct principal.
        const voters =
          state.status === 'none'
            ? []
            : state.notes.filter((n) => n.type === 'approval.received').map((n) => n.decidedBy);
        expect(new Set(voters).size).toBe(voters.length);
      }),
      { numRuns: 300 },
    );
  });
});
