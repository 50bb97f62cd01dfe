import { DomainError } from '@openwop/kernel';

/** One problem with a turn or an open request; `path` is a JSON pointer into what was sent. */
export interface Violation {
  readonly path: string;
  readonly message: string;
}

/** No conversation was opened for this (run, node, attempt): `404 interrupt_not_found`. */
export class ConversationNotFound extends DomainError {
  constructor(operation: 'exchange' | 'close') {
    super('interrupt_not_found', `No conversation is open to ${operation} a turn on.`, { operation });
  }
}

/**
 * The conversation is closed. An `exchange` after close is `validation_error`, as RFC 0005 §E
 * says; a second `close` is a second resolve of the node's interrupt, so it is
 * `409 interrupt_already_resolved` (interrupt.md §Error responses), as for every interrupt kind.
 */
export class ConversationClosed extends DomainError {
  constructor(
    readonly conversationId: string,
    readonly operation: 'exchange' | 'close',
    readonly closedReason: string,
  ) {
    super(
      operation === 'exchange' ? 'validation_error' : 'interrupt_already_resolved',
      `Conversation ${conversationId} is closed (${closedReason}); it takes no more turns.`,
      {
        conversationId,
        operation,
        closedReason,
        errors: [{ path: '', message: `conversation is closed (${closedReason})` }],
      },
    );
  }
}

/** A turn that breaks the conversation's rules (schema, index, messageId reuse); nothing is written. */
export class InvalidTurn extends DomainError {
  constructor(
    message: string,
    readonly violations: readonly Violation[],
    details: Record<string, unknown> = {},
  ) {
    super('validation_error', message, { ...details, errors: violations });
  }

  static at(path: string, message: string, details: Record<string, unknown> = {}): InvalidTurn {
    return new InvalidTurn(`turn${path} ${message}`, [{ path, message }], details);
  }
}

/** RFC 0101 §Spec 2: an `agent` turn without `speakerId`. */
export class MissingSpeaker extends DomainError {
  constructor(messageId: string) {
    super('validation_error', `Agent turn ${messageId} has no speakerId (RFC 0101).`, {
      messageId,
      errors: [{ path: '/speakerId', message: 'is required on an agent turn' }],
    });
  }
}

/** RFC 0101 §Spec 3: an `agent` turn whose speaker is not on the declared roster. */
export class SpeakerNotParticipant extends DomainError {
  constructor(conversationId: string, speakerId: string) {
    super(
      'validation_error',
      `Speaker ${speakerId} is not a participant of conversation ${conversationId} (RFC 0101).`,
      {
        conversationId,
        speakerId,
        reason: 'speaker_not_participant',
        errors: [{ path: '/speakerId', message: 'is not a participant of this conversation' }],
      },
    );
  }
}

/**
 * RFC 0101 §Spec 4: a roster larger than the host's `multiPartyConversation.maxParticipants`. The
 * code is `validation_error` (RFC 0101 routes roster refusals through the RFC 0005 §E turn-validation
 * path; host-sample-test-seams.md names the code); `details.reason` and `details.maxParticipants` say why.
 */
export class RosterExceeded extends DomainError {
  constructor(participants: number, maxParticipants: number) {
    super(
      'validation_error',
      `The roster has ${participants} participants; this host allows at most ${maxParticipants}.`,
      {
        reason: 'conversation_roster_exceeded',
        participants,
        maxParticipants,
        errors: [
          {
            path: '/participants',
            message: `has ${participants} members; at most ${maxParticipants} are allowed`,
          },
        ],
      },
    );
  }
}

/** A roster or turn schema that cannot work: duplicate members, an uncompilable schema. */
export class InvalidConversation extends DomainError {
  constructor(path: string, message: string) {
    super('validation_error', `conversation${path} ${message}`, { errors: [{ path, message }] });
  }
}
