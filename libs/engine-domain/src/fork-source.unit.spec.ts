import { describe, expect, it } from '@jest/globals';
import { DomainError } from '@openwop/kernel';
import { TIMER_FIRED, type RunEventDoc, type RunEventType } from '@openwop/contracts';
import { assertForkMayReuse, forkSourceOf, overlaidMetadata } from './fork-source';

const ev = (sequence: number, type: RunEventType, payload: unknown, nodeId?: string): RunEventDoc => ({
  eventId: `r1:${sequence}`,
  runId: 'r1',
  ...(nodeId ? { nodeId } : {}),
  type,
  sequence,
  timestamp: '2026-11-22T00:00:00.000Z',
  payload,
  schemaVersion: 1,
});

const STARTED = ev(0, 'run.started', {
  workflowId: 'wf',
  inputs: { q: 1 },
  metadata: { configurable: { x: 1 } },
});

/** A source that waited on three interrupts: a, resolved; b, timed out; c, rejected by its timeout. */
const SOURCE = [
  ev(3, 'interrupt.resolved', { key: 'r1:b:0', outcome: 'timeout', resolvedBy: 'system:timer' }, 'b'),
  STARTED,
  ev(
    1,
    'interrupt.resolved',
    { key: 'r1:a:0', outcome: 'resolved', resumeValue: { ok: true }, resolvedBy: 'alice', resolvedAt: 'T' },
    'a',
  ),
  ev(2, 'node.completed', { nodeId: 'a', outputs: {} }, 'a'),
  ev(4, 'interrupt.resolved', { key: 'r1:c:0', outcome: 'rejected', reason: 'timeout' }, 'c'),
];

function refusal(f: () => unknown): DomainError {
  try {
    f();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('forkSourceOf: what a fork takes from its source log (replay.md, ADR 0008)', () => {
  it('replay: history before fromSeq in order, every resolution, the comparable rest', () => {
    const replay = forkSourceOf(SOURCE, 2, 'replay');
    expect(replay.history.map((e) => e.sequence)).toEqual([0, 1]);
    expect(replay.resolutions).toEqual({
      'r1:a:0': { value: { ok: true }, resolvedBy: 'alice', resolvedAt: 'T' },
      'r1:b:0': { timeout: true, resolvedBy: 'system:timer' },
      'r1:c:0': { timeout: true },
    });
    expect(replay.expected.map((e) => e.sequence)).toEqual([2]); // 3 and 4: the wait is not compared
    expect(replay.started).toEqual({
      workflowId: 'wf',
      inputs: { q: 1 },
      metadata: { configurable: { x: 1 } },
    });
  });

  it('branch: only the resolutions before fromSeq, nothing to compare', () => {
    const branch = forkSourceOf(SOURCE, 2, 'branch');
    expect(branch.history.map((e) => e.sequence)).toEqual([0, 1]);
    expect(Object.keys(branch.resolutions)).toEqual(['r1:a:0']);
    expect(branch.expected).toEqual([]);
  });

  it('fromSeq may name any event of the log, the first and the last included', () => {
    expect(forkSourceOf(SOURCE, 0, 'replay').history).toEqual([]);
    expect(forkSourceOf(SOURCE, 0, 'replay').expected.map((e) => e.sequence)).toEqual([0, 2]);
    expect(forkSourceOf(SOURCE, 4, 'branch').history.map((e) => e.sequence)).toEqual([0, 1, 2, 3]);
  });

  it('past the log, or a sequence the log lacks: 422 sequence_not_found with the log bounds', () => {
    const past = refusal(() => forkSourceOf(SOURCE, 5, 'replay'));
    expect([past.code, past.details]).toEqual([
      'sequence_not_found',
      { sourceRunId: 'r1', fromSeq: 5, lastSequence: 4 },
    ]);
    expect(past.message).toBe('Run r1 has no event at sequence 5 (its log holds 0..4).');
    const gap = refusal(() => forkSourceOf([STARTED, ev(2, 'node.completed', {}, 'a')], 1, 'branch'));
    expect(gap.code).toBe('sequence_not_found');
  });

  it('a log without run.started is no run to fork: not_found', () => {
    const e = refusal(() => forkSourceOf([ev(0, 'node.started', {}, 'a')], 0, 'replay'));
    expect([e.code, e.message, e.details]).toEqual(['not_found', 'Run r1 not found.', undefined]);
  });

  it('a fired durable timer is answered like an interrupt: the fork does not wait again', () => {
    const log = [
      STARTED,
      ev(1, 'log.appended', {
        level: 'info',
        message: 'timer',
        fields: { event: TIMER_FIRED, timerKey: 'r1:wait:0' },
      }),
    ];
    expect(forkSourceOf(log, 0, 'replay').resolutions).toEqual({ 'r1:wait:0': { value: null } });
    // In a branch, only a firing before the fork point.
    expect(forkSourceOf(log, 1, 'branch').resolutions).toEqual({});
  });

  it('hands over only the conversations a reused resolution closed, by their source id (ADR 0023)', () => {
    const cid = 'r1:talk:0';
    const log = [
      STARTED,
      ev(1, 'interrupt.requested', { key: 'r1:talk:0', data: { conversationId: cid } }, 'talk'),
      ev(2, 'conversation.opened', { conversationId: cid, turn: { turnIndex: 0 } }, 'talk'),
      ev(3, 'conversation.exchanged', { conversationId: cid, turn: { turnIndex: 1 } }, 'talk'),
      ev(4, 'conversation.closed', { conversationId: cid, finalTurn: { turnIndex: 2 } }, 'talk'),
      ev(
        5,
        'interrupt.resolved',
        { key: 'r1:talk:0', outcome: 'resolved', resumeValue: { operation: 'close' } },
        'talk',
      ),
    ];
    expect(forkSourceOf(log, 0, 'replay').conversations[cid]!.map((e) => e.type)).toEqual([
      'conversation.opened',
      'conversation.exchanged',
      'conversation.closed',
    ]);
    // A branch from inside the talk reuses no resolution of it: the fork waits, nothing is re-folded.
    expect(forkSourceOf(log, 3, 'branch').conversations).toEqual({});
    expect(forkSourceOf(log, 3, 'branch').history.map((e) => e.type)).toContain('conversation.opened');
  });
});

describe('overlaidMetadata: a branch lays its RunOptions over the source run.started metadata', () => {
  it('merges configurable key by key and lays metadata and tags over', () => {
    expect(overlaidMetadata({ a: 1 }, undefined)).toEqual({ a: 1 });
    expect(overlaidMetadata({ a: 1 }, {})).toEqual({ a: 1 });
    expect(overlaidMetadata(undefined, {})).toBeUndefined();
    expect(
      overlaidMetadata(
        { a: 1, configurable: { x: 1, y: 1 } },
        { configurable: { y: 2 }, metadata: { b: 2 }, tags: ['t'] },
      ),
    ).toEqual({ a: 1, b: 2, configurable: { x: 1, y: 2 }, tags: ['t'] });
    expect(overlaidMetadata(undefined, { tags: ['only'] })).toEqual({ tags: ['only'] });
  });
});

describe('assertForkMayReuse: reusing a recorded answer needs approvals:respond (ADR 0008)', () => {
  it('lists the interrupt resolutions a fork reuses, not the fired timers', () => {
    const timer = ev(5, 'log.appended', {
      level: 'info',
      message: 'timer',
      fields: { event: TIMER_FIRED, timerKey: 'r1:wait:0' },
    });
    expect(forkSourceOf([...SOURCE, timer], 2, 'replay').reusedInterrupts).toEqual([
      { key: 'r1:a:0', sequence: 1 },
      { key: 'r1:b:0', sequence: 3 },
      { key: 'r1:c:0', sequence: 4 },
    ]);
    expect(forkSourceOf([...SOURCE, timer], 2, 'branch').reusedInterrupts).toEqual([
      { key: 'r1:a:0', sequence: 1 },
    ]);
    expect(forkSourceOf([...SOURCE, timer], 1, 'branch').reusedInterrupts).toEqual([]);
    expect(forkSourceOf([STARTED, timer], 0, 'replay').reusedInterrupts).toEqual([]);
  });

  it('refuses a fork that reuses one when the caller may not resolve, naming the scope and where to branch instead', () => {
    const reused = forkSourceOf(SOURCE, 0, 'replay').reusedInterrupts;
    const e = refusal(() => assertForkMayReuse('r1', reused, false));
    expect(e.code).toBe('forbidden');
    expect(e.details).toEqual({
      scopeRequired: 'approvals:respond',
      sourceRunId: 'r1',
      reusedInterrupts: 3,
      resolvedAtSequence: 1,
    });
    expect(e.message).toContain('approvals:respond');
    expect(() => assertForkMayReuse('r1', reused, true)).not.toThrow();
    expect(() =>
      assertForkMayReuse('r1', forkSourceOf(SOURCE, 1, 'branch').reusedInterrupts, false),
    ).not.toThrow();
  });
});
