import fc from 'fast-check';
import { DomainError } from '@openwop/kernel';
import type { ConversationCommand } from './conversation.commands';
import { decideConversation } from './conversation.decider';
import type { ConversationEvent } from './conversation.events';
import type { ConversationState } from './conversation.state';
import type { TurnInput, TurnRole } from './conversation.types';
import { transcriptOf } from './transcript';
import {
  COUNCIL,
  expectWireValid,
  fold,
  history,
  LATER,
  openCommand,
  roster,
  SUSPENDED_EVENT_ID,
} from './conversation.given.spec';

const MEMBERS = COUNCIL.map((p) => p.agentId);

/** A turn drawn from a small messageId pool, so retries and collisions are common. */
const turnInput: fc.Arbitrary<TurnInput> = fc
  .record({
    id: fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', '__proto__'),
    role: fc.constantFrom<TurnRole>('user', 'agent', 'system'),
    speakerId: fc.option(fc.constantFrom(...MEMBERS, 'host:intruder'), { nil: undefined }),
    content: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)),
    turnIndex: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined, freq: 4 }),
  })
  .map(({ id, role, speakerId, content, turnIndex }) => ({
    messageId: id,
    // One producer per messageId and role, so a repeated id is usually a retry and sometimes a collision.
    from: role === 'user' ? 'user' : `${role}-${id}`,
    role,
    content,
    ...(speakerId !== undefined ? { speakerId } : {}),
    ...(turnIndex !== undefined ? { turnIndex } : {}),
  }));

const command: fc.Arbitrary<ConversationCommand> = fc.oneof(
  {
    weight: 8,
    arbitrary: turnInput.map((turn): ConversationCommand => ({ type: 'ExchangeTurn', turn, now: LATER })),
  },
  {
    weight: 1,
    arbitrary: fc.option(turnInput, { nil: undefined }).map(
      (finalTurn): ConversationCommand => ({
        type: 'CloseConversation',
        outcome: 'done',
        ...(finalTurn ? { finalTurn } : {}),
        now: LATER,
      }),
    ),
  },
  { weight: 1, arbitrary: fc.constant<ConversationCommand>({ type: 'ExpireConversation', now: LATER }) },
);

const opening = fc.record({
  withRoster: fc.boolean(),
  withSchema: fc.boolean(),
  timeoutMs: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
});

function openWith(o: { withRoster: boolean; withSchema: boolean; timeoutMs: number | undefined }) {
  return history(
    openCommand({
      ...(o.withRoster ? { participants: COUNCIL } : {}),
      ...(o.withSchema ? { turnSchema: { type: ['string', 'null'] } } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    }),
  );
}

/** Decides one command; a refusal must be a DomainError and decides nothing. */
function step(cmd: ConversationCommand, state: ConversationState): ConversationEvent[] {
  try {
    return decideConversation(cmd, state);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return [];
  }
}

const messageIdOf = (cmd: ConversationCommand) =>
  cmd.type === 'ExchangeTurn'
    ? cmd.turn.messageId
    : cmd.type === 'CloseConversation'
      ? cmd.finalTurn?.messageId
      : undefined;

describe('conversation decider properties', () => {
  it('turnIndex stays 0-based, monotonic and gapless under random exchanges with duplicate messageIds; events chain', () => {
    fc.assert(
      fc.property(opening, fc.array(command, { maxLength: 30 }), (o, commands) => {
        const log = openWith(o);
        let state = fold(log);
        for (const cmd of commands) {
          const before = state;
          const events = step(cmd, before);
          expect(events.length).toBeLessThanOrEqual(1);
          const id = messageIdOf(cmd);
          // A messageId already recorded never records a second turn.
          if (
            cmd.type === 'ExchangeTurn' &&
            id !== undefined &&
            before.status !== 'not-open' &&
            before.seenMessageIds.has(id)
          ) {
            expect(events).toEqual([]);
          }
          for (const event of events) {
            expectWireValid(event);
            if (before.status !== 'not-open') {
              const { payload } = event.data;
              expect('turnIndex' in payload && payload.turnIndex).toBe(before.nextTurnIndex);
              expect(event.data.causationId).toBe(before.lastEventId);
            }
          }
          state = events.reduce((s, e) => fold([e], s), before);
          log.push(...events);
        }
        const turns = transcriptOf(state);
        expect(turns.map((t) => t.turnIndex)).toEqual(turns.map((_, i) => i));
        if (state.status !== 'not-open') {
          const { nextTurnIndex, seenMessageIds } = state;
          expect(nextTurnIndex).toBe(turns.length);
          expect(seenMessageIds.size).toBe(turns.length);
          turns.forEach((t, i) => expect(seenMessageIds.get(t.messageId)).toBe(i));
        }
        expect(log[0]!.data.causationId).toBe(SUSPENDED_EVENT_ID);
        log.slice(1).forEach((e, i) => expect(e.data.causationId).toBe(log[i]!.data.eventId));
        expect(new Set(log.map((e) => e.data.eventId)).size).toBe(log.length);
        // The log folds back to the live state, even when every event is delivered twice.
        expect(fold(log)).toEqual(state);
        expect(fold(log.flatMap((e) => [e, e]))).toEqual(state);
      }),
      { numRuns: 300 },
    );
  });

  it('no event follows conversation.closed, and it is decided at most once', () => {
    fc.assert(
      fc.property(opening, fc.array(command, { maxLength: 30 }), (o, commands) => {
        let state = fold(openWith(o));
        let closes = 0;
        for (const cmd of commands) {
          const wasClosed = state.status === 'closed';
          const events = step(cmd, state);
          if (wasClosed) expect(events).toEqual([]);
          closes += events.filter((e) => e.type === 'conversation.closed').length;
          state = events.reduce((s, e) => fold([e], s), state);
          if (wasClosed) expect(state.status).toBe('closed');
        }
        expect(closes).toBeLessThanOrEqual(1);
        expect(closes === 1).toBe(state.status === 'closed');
      }),
      { numRuns: 300 },
    );
  });

  it('with a roster, every recorded agent turn is attributed to a participant', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        let state = fold(openWith({ withRoster: true, withSchema: false, timeoutMs: undefined }));
        for (const cmd of commands) state = step(cmd, state).reduce((s, e) => fold([e], s), state);
        for (const turn of transcriptOf(state).filter((t) => t.role === 'agent')) {
          expect(MEMBERS).toContain(turn.speakerId);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a roster opens iff it fits maxParticipants; otherwise validation_error naming the cap, and nothing is written', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 2, max: 12 }), (size, max) => {
        const participants = roster(...Array.from({ length: size }, (_, i) => `host:member-${i}`));
        const open = () => decideConversation(openCommand({ participants, maxParticipants: max }), fold([]));
        if (size <= max) {
          const [event] = open();
          expect(event?.type === 'conversation.opened' && event.data.payload.participants).toEqual(
            participants,
          );
        } else {
          let error: unknown;
          try {
            open();
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe('validation_error');
          expect((error as DomainError).details).toMatchObject({
            reason: 'conversation_roster_exceeded',
            participants: size,
            maxParticipants: max,
          });
        }
      }),
      { numRuns: 200 },
    );
  });
});
