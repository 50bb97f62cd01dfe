import oversizeFixture from '../../contracts/src/fixtures/conformance-multi-party-council-oversize.json';
import councilFixture from '../../contracts/src/fixtures/conformance-multi-party-council.json';
import { RosterExceeded, SpeakerNotParticipant } from './conversation.errors';
import type { AgentRef } from './conversation.types';
import {
  agentTurn,
  close,
  COUNCIL,
  exchange,
  given,
  history,
  openCommand,
  roster,
  userTurn,
} from './conversation.given.spec';

const council = (over: Parameters<typeof openCommand>[0] = {}) =>
  history(openCommand({ participants: COUNCIL, ...over }));
const fixtureRoster = (fixture: typeof councilFixture): AgentRef[] => fixture.nodes[0]!.config.participants;

describe('multi-party conversation (RFC 0101)', () => {
  describe('roster on conversation.opened', () => {
    it('carries the participants on conversation.opened, in roster order', () => {
      const [event] = given()
        .when(openCommand({ participants: COUNCIL }))
        .events();
      expect(event?.type === 'conversation.opened' && event.data.payload.participants).toEqual(COUNCIL);
    });

    it('opens the conformance council fixture roster', () => {
      const participants = fixtureRoster(councilFixture);
      expect(given().when(openCommand({ participants })).next()).toMatchObject({
        status: 'open',
        participants,
      });
    });

    it('refuses a roster over maxParticipants with validation_error naming the cap (RFC 0101 §Spec 4), writing nothing', () => {
      const error = given()
        .when(openCommand({ participants: COUNCIL, maxParticipants: 2 }))
        .thenRefuses('validation_error', {
          reason: 'conversation_roster_exceeded',
          participants: 3,
          maxParticipants: 2,
          errors: [{ path: '/participants', message: 'has 3 members; at most 2 are allowed' }],
        });
      expect(error).toBeInstanceOf(RosterExceeded);
    });

    it('refuses the 64-member conformance oversize fixture under a smaller cap', () => {
      given()
        .when(openCommand({ participants: fixtureRoster(oversizeFixture), maxParticipants: 16 }))
        .thenRefuses('validation_error', {
          reason: 'conversation_roster_exceeded',
          participants: 64,
          maxParticipants: 16,
        });
    });

    it('accepts a roster of exactly maxParticipants, or any roster when the host advertises no cap', () => {
      expect(
        given()
          .when(openCommand({ participants: COUNCIL, maxParticipants: 3 }))
          .next().status,
      ).toBe('open');
      expect(
        given()
          .when(openCommand({ participants: fixtureRoster(oversizeFixture), maxParticipants: Infinity }))
          .next().status,
      ).toBe('open');
    });

    it('refuses a roster naming an agent twice', () => {
      given()
        .when(openCommand({ participants: roster('host:a', 'host:b', 'host:a') }))
        .thenRefuses('validation_error', { errors: [{ path: '/participants/2/agentId' }] });
    });

    it('without a roster, any attributed agent may speak (no membership rule)', () => {
      expect(
        given(...history(openCommand()))
          .when(exchange(agentTurn('host:anyone', 'hi', 'm1')))
          .next(),
      ).toMatchObject({ nextTurnIndex: 2 });
    });
  });

  describe('speaker attribution', () => {
    it('records an agent turn with its speakerId', () => {
      const [event] = given(...council())
        .when(exchange(agentTurn('host:cto', 'Ship it.', 'm1')))
        .events();
      expect(event!.data.payload).toMatchObject({ turn: { role: 'agent', speakerId: 'host:cto' } });
    });

    it('refuses an agent turn without speakerId with validation_error, roster or not', () => {
      given(...council())
        .when(exchange(agentTurn(undefined, 'anonymous', 'm1')))
        .thenRefuses('validation_error', { errors: [{ path: '/speakerId' }] });
      given(...history(openCommand()))
        .when(exchange(agentTurn(undefined, 'anonymous', 'm1')))
        .thenRefuses('validation_error');
      given(...council())
        .when(exchange(agentTurn(undefined, 'anonymous', 'm1', { speakerId: '' })))
        .thenRefuses('validation_error');
    });

    it('refuses an agent turn from a non-participant with validation_error; the transcript is unchanged', () => {
      const g = given(...council());
      const error = g
        .when(exchange(agentTurn('host:intruder', 'let me in', 'm1')))
        .thenRefuses('validation_error', { speakerId: 'host:intruder', reason: 'speaker_not_participant' });
      expect(error).toBeInstanceOf(SpeakerNotParticipant);
      expect(g.state).toMatchObject({ nextTurnIndex: 1 });
    });

    it('decides who may speak before where: a non-member or unattributed turn at a wrong turnIndex is refused for its speaker', () => {
      given(...council())
        .when(exchange(agentTurn('host:intruder', 'let me in', 'm1', { turnIndex: 7 })))
        .thenRefuses('validation_error', { reason: 'speaker_not_participant' });
      given(...council())
        .when(exchange(agentTurn(undefined, 'anonymous', 'm1', { turnIndex: 7 })))
        .thenRefuses('validation_error', { errors: [{ path: '/speakerId' }] });
      given(...council())
        .when(exchange(agentTurn('host:cto', 'late', 'm1', { turnIndex: 7 })))
        .thenRefuses('validation_error', { expectedTurnIndex: 1 });
    });

    it('checks the initial and the final turn too', () => {
      given()
        .when(openCommand({ participants: COUNCIL, initialTurn: agentTurn('host:intruder', 'hi', 'm0') }))
        .thenRefuses('validation_error', { reason: 'speaker_not_participant' });
      given()
        .when(openCommand({ participants: COUNCIL, initialTurn: agentTurn(undefined, 'hi', 'm0') }))
        .thenRefuses('validation_error', { errors: [{ path: '/speakerId' }] });
      given(...council())
        .when(close({ finalTurn: agentTurn('host:intruder', 'bye', 'm9') }))
        .thenRefuses('validation_error', { reason: 'speaker_not_participant' });
      expect(
        given(...council())
          .when(close({ finalTurn: agentTurn('host:coo', 'Agreed: Q4.', 'm9') }))
          .next().status,
      ).toBe('closed');
    });

    it('does not check the speakerId of user and system turns (no normative meaning)', () => {
      expect(
        given(...council())
          .when(exchange(userTurn('me', 'm1', { speakerId: 'host:not-on-roster' })))
          .next(),
      ).toMatchObject({ nextTurnIndex: 2 });
    });
  });
});
