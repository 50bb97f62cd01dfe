import { approvalData, ctx, given, NOW, opened, resolveWith } from '../interrupt.given.spec';
import { escalationDueAt } from '../interrupt.decider';
import type { EscalateInterrupt } from '../interrupt.commands';
import type { InterruptEvent } from '../interrupt.events';
import { interruptStateDocument, interruptStateFromDocument } from '../interrupt-state.version';
import {
  evolveInterrupt,
  initialInterruptState,
  type InterruptState,
  type PendingInterrupt,
} from '../interrupt.state';
import { nextEscalationStep, readEscalationPolicy } from './escalation.policy';

const at = (ms: number) => new Date(Date.parse(NOW) + ms).toISOString();

const escalation = {
  reminders: [{ afterMs: 2000 }],
  reassign: { afterMs: 4000, approvers: ['lead', 'deputy'] },
  defaultAction: 'reject',
};

const gate = (over: Record<string, unknown> = {}) =>
  opened('approval', approvalData({ approversList: ['alice'], escalation, ...over }), {
    timeoutMs: 6000,
    deadlineAt: at(6000),
  });

const escalate = (step: number, nowMs: number): EscalateInterrupt => ({
  type: 'EscalateInterrupt',
  interruptId: 'r1:gate:0',
  step,
  context: ctx('system:interrupt-timer', { now: at(nowMs) }),
});

const fold = (events: InterruptEvent[]): InterruptState =>
  events.reduce(evolveInterrupt, initialInterruptState());

describe('escalation policy (pure)', () => {
  it('orders steps by age; at the same age reminders come before the reassignment', () => {
    const policy = readEscalationPolicy({
      escalation: {
        reminders: [{ afterMs: 5000 }, { afterMs: 1000 }],
        reassign: { afterMs: 1000, group: 'finance' },
      },
    });
    expect(policy?.steps).toEqual([
      { kind: 'remind', afterMs: 1000 },
      { kind: 'reassign', afterMs: 1000, approvers: ['group:finance'] },
      { kind: 'remind', afterMs: 5000 },
    ]);
  });

  it('has no policy without data.escalation, and leaves out steps that do not parse', () => {
    expect(readEscalationPolicy(approvalData())).toBeUndefined();
    expect(
      readEscalationPolicy({ escalation: { reminders: [{ afterMs: -1 }, 'x', { afterMs: 10 }] } })?.steps,
    ).toEqual([{ kind: 'remind', afterMs: 10 }]);
  });

  it('the next step is the first undone one, due at opened-at + its age; none after the last', () => {
    const policy = readEscalationPolicy({ escalation });
    const opened = Date.parse(NOW);
    expect(nextEscalationStep(policy, opened, 0)).toEqual({
      index: 0,
      step: { kind: 'remind', afterMs: 2000 },
      dueAt: at(2000),
    });
    expect(nextEscalationStep(policy, opened, 1)).toMatchObject({
      index: 1,
      step: { kind: 'reassign' },
      dueAt: at(4000),
    });
    expect(nextEscalationStep(policy, opened, 2)).toBeUndefined();
    expect(nextEscalationStep(undefined, opened, 0)).toBeUndefined();
  });
});

describe('interrupt decider: escalation', () => {
  it('a due reminder is decided once, then the reassignment; the state shows the new approvers', () => {
    const reminded = given(gate()).when(escalate(0, 2000)).events();
    expect(reminded).toEqual([
      {
        type: 'interrupt.reminded',
        data: { step: 0, ageMs: 2000, approvers: ['alice'], remindedAt: at(2000) },
      },
    ]);
    // The same step again (a second instance, a redelivery) decides nothing.
    given(gate(), ...reminded)
      .when(escalate(0, 2500))
      .then([]);
    const reassigned = given(gate(), ...reminded)
      .when(escalate(1, 4100))
      .events();
    expect(reassigned).toEqual([
      {
        type: 'interrupt.reassigned',
        data: {
          step: 1,
          ageMs: 4100,
          approvers: ['lead', 'deputy'],
          previousApprovers: ['alice'],
          reassignedAt: at(4100),
        },
      },
    ]);
    const state = fold([gate(), ...reminded, ...reassigned]);
    expect(state).toMatchObject({
      status: 'pending',
      escalated: 2,
      interrupt: { data: { approversList: ['lead', 'deputy'] } },
    });
    given(gate(), ...reminded, ...reassigned)
      .when(escalate(1, 4200))
      .then([]);
    given(gate(), ...reminded, ...reassigned)
      .when(escalate(2, 5000))
      .then([]);
  });

  it('a reminder names the approvers of its moment: after a reassignment, the new ones; none when there are none', () => {
    const later = {
      reminders: [{ afterMs: 1000 }, { afterMs: 3000 }],
      reassign: { afterMs: 2000, group: 'finance' },
    };
    const first = given(gate({ escalation: later }))
      .when(escalate(0, 1000))
      .events();
    const moved = given(gate({ escalation: later }), ...first)
      .when(escalate(1, 2000))
      .events();
    const second = given(gate({ escalation: later }), ...first, ...moved)
      .when(escalate(2, 3000))
      .events();
    expect(first[0]).toMatchObject({ type: 'interrupt.reminded', data: { approvers: ['alice'] } });
    expect(moved[0]).toMatchObject({ type: 'interrupt.reassigned', data: { approvers: ['group:finance'] } });
    expect(second[0]).toMatchObject({
      type: 'interrupt.reminded',
      data: { step: 2, approvers: ['group:finance'] },
    });
    const clarification = opened(
      'clarification',
      { questions: [{ id: 'q', question: '?' }], escalation: later },
      { timeoutMs: 6000 },
    );
    expect(given(clarification).when(escalate(0, 1000)).events()).toEqual([
      { type: 'interrupt.reminded', data: { step: 0, ageMs: 1000, remindedAt: at(1000) } },
    ]);
  });

  it('decides nothing early, out of order, or for another interrupt', () => {
    given(gate()).when(escalate(0, 1999)).then([]);
    given(gate()).when(escalate(1, 4000)).then([]);
    given(gate())
      .when({ ...escalate(0, 3000), interruptId: 'other' })
      .then([]);
  });

  it('an answer before a step cancels the rest: a decided interrupt never escalates and has no due step', () => {
    const resolved = given(gate())
      .when(resolveWith({ action: 'accept' }, 'alice'))
      .events();
    given(gate(), ...resolved)
      .when(escalate(0, 2000))
      .then([]);
    expect(escalationDueAt(fold([gate(), ...resolved]))).toBeUndefined();
  });

  describe('a timer that gets to the gate late (down past the whole chain, or the gate opened late)', () => {
    // A reminder at 3 s, a reassignment at 6 s, a second reminder at 7 s and the default at 9 s: all
    // overdue when the timer gets to the row at 10 s.
    const chain = {
      reminders: [{ afterMs: 3000 }, { afterMs: 7000 }],
      reassign: { afterMs: 6000, approvers: ['lead'] },
      defaultAction: 'reject',
    };
    const lateGate = () =>
      opened('approval', approvalData({ approversList: ['alice'], escalation: chain }), {
        timeoutMs: 9000,
        deadlineAt: at(9000),
      });
    const expireAt = (nowMs: number) =>
      ({
        type: 'ExpireInterrupt',
        interruptId: 'r1:gate:0',
        context: ctx('system:interrupt-timer', { now: at(nowMs) }),
      }) as const;
    const chainEvents = [
      {
        type: 'interrupt.reminded',
        data: { step: 0, ageMs: 10_000, approvers: ['alice'], remindedAt: at(10_000) },
      },
      {
        type: 'interrupt.reassigned',
        data: {
          step: 1,
          ageMs: 10_000,
          approvers: ['lead'],
          previousApprovers: ['alice'],
          reassignedAt: at(10_000),
        },
      },
      // After the reassignment, the reminder names the new approvers.
      {
        type: 'interrupt.reminded',
        data: { step: 2, ageMs: 10_000, approvers: ['lead'], remindedAt: at(10_000) },
      },
    ];

    it('the expiry decides every overdue step, in order, each its own event, before the default', () => {
      const events = given(lateGate()).when(expireAt(10_000)).events();
      expect(events).toEqual([
        ...chainEvents,
        { type: 'interrupt.expired', data: { expiredAt: at(10_000) } },
      ]);
      expect(fold([lateGate(), ...events])).toMatchObject({
        status: 'expired',
        escalated: 3,
        interrupt: { data: { approversList: ['lead'] } },
      });
    });

    it('the escalation pass decides every overdue step from the next undone one; then the expiry decides only the default', () => {
      const steps = given(lateGate()).when(escalate(0, 10_000)).events();
      expect(steps).toEqual(chainEvents);
      expect(escalationDueAt(fold([lateGate(), ...steps]))).toBeUndefined();
      given(lateGate(), ...steps)
        .when(expireAt(10_000))
        .then([{ type: 'interrupt.expired', data: { expiredAt: at(10_000) } }]);
    });

    it('a step already done is never decided again (a restart mid-chain), and a stale step number decides nothing', () => {
      const first = given(lateGate()).when(escalate(0, 3500)).events();
      expect(first).toEqual([
        {
          type: 'interrupt.reminded',
          data: { step: 0, ageMs: 3500, approvers: ['alice'], remindedAt: at(3500) },
        },
      ]);
      // A duplicate of the first step's command, late: step 0 is done, so nothing.
      given(lateGate(), ...first)
        .when(escalate(0, 10_000))
        .then([]);
      const rest = given(lateGate(), ...first)
        .when(expireAt(10_000))
        .events();
      expect(rest.map((e) => [e.type, 'step' in e.data ? e.data.step : undefined])).toEqual([
        ['interrupt.reassigned', 1],
        ['interrupt.reminded', 2],
        ['interrupt.expired', undefined],
      ]);
    });

    it('only the steps due by now: an expiry before a step is due leaves that step out', () => {
      const events = given(lateGate()).when(expireAt(6500)).events();
      expect(events.map((e) => e.type)).toEqual([
        'interrupt.reminded',
        'interrupt.reassigned',
        'interrupt.expired',
      ]);
    });
  });

  it('the due time follows the steps done, and is absent for a gate without a policy', () => {
    expect(escalationDueAt(fold([gate()]))).toBe(at(2000));
    const reminded = given(gate()).when(escalate(0, 2000)).events();
    expect(escalationDueAt(fold([gate(), ...reminded]))).toBe(at(4000));
    expect(escalationDueAt(fold([opened('approval', approvalData())]))).toBeUndefined();
  });
});

describe('stored interrupt state and escalation (ADR 0031 rule 3: an additive optional field)', () => {
  it('a document of a release before escalation (no escalated) reads as no step done', () => {
    const pending = fold([gate()]) as PendingInterrupt;
    for (const doc of [{ ...pending }, { ...pending, schemaVersion: 1 }]) {
      const read = interruptStateFromDocument(doc);
      expect(read).not.toHaveProperty('escalated');
      expect(escalationDueAt(read)).toBe(at(2000));
    }
  });

  it('steps done survive the stored document, at the current version', () => {
    const reminded = given(gate()).when(escalate(0, 2000)).events();
    const state = fold([gate(), ...reminded]) as PendingInterrupt;
    const doc = JSON.parse(JSON.stringify(interruptStateDocument(state))) as object;
    expect(doc).toMatchObject({ schemaVersion: 1, escalated: 1 });
    expect(escalationDueAt(interruptStateFromDocument(doc))).toBe(at(4000));
  });
});
