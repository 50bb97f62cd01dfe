import type { InterruptFacts } from './interrupt.commands';
import type { InterruptEvent, InterruptNote } from './interrupt.events';

interface Held {
  readonly interrupt: InterruptFacts;
  /** Votes and asks in the order they were recorded. */
  readonly notes: readonly InterruptNote[];
  /**
   * Escalation steps done (ADR 0034); absent is none. An additive optional field (ADR 0031 rule 3):
   * a reader that does not know it keeps it through its spreads.
   */
  readonly escalated?: number;
}

export interface NoInterrupt {
  readonly status: 'none';
}

/** A lease on a pending interrupt (the inbox ADR): it holds until `expiresAt`, compared with the reader's clock. */
export interface InterruptClaim {
  readonly claimedBy: string;
  readonly claimedAt: string;
  readonly expiresAt: string;
}

export interface PendingInterrupt extends Held {
  readonly status: 'pending';
  /** The last claim taken; it may have lapsed (see `liveClaim`). */
  readonly claim?: InterruptClaim;
}

export interface ResolvedInterrupt extends Held {
  readonly status: 'resolved';
  readonly resumeValue: unknown;
  readonly resolvedBy: string;
  readonly resolvedAt: string;
}

export interface ExpiredInterrupt extends Held {
  readonly status: 'expired';
  readonly expiredAt: string;
}

export interface CancelledInterrupt extends Held {
  readonly status: 'cancelled';
  readonly cancelledAt: string;
  readonly reason?: string;
  /** The parent run whose cancel cascaded to this interrupt's run. */
  readonly parentRunId?: string;
}

/** One interrupt's state: a union of named states, never a bag of flags. */
export type InterruptState =
  | NoInterrupt
  | PendingInterrupt
  | ResolvedInterrupt
  | ExpiredInterrupt
  | CancelledInterrupt;

export type InterruptStatus = InterruptState['status'];

export const initialInterruptState = (): InterruptState => ({ status: 'none' });

/**
 * Folds one event into the state. Only a pending interrupt moves; an event that does not apply
 * to the current state leaves it unchanged, so a terminal interrupt never becomes pending again.
 */
export function evolveInterrupt(state: InterruptState, event: InterruptEvent): InterruptState {
  if (event.type === 'interrupt.opened') {
    return state.status === 'none'
      ? { status: 'pending', interrupt: event.data.interrupt, notes: [] }
      : state;
  }
  if (state.status !== 'pending') return state;
  switch (event.type) {
    case 'interrupt.claimed':
      return { ...state, claim: event.data };
    case 'interrupt.released': {
      const { claim: _released, ...rest } = state;
      return rest;
    }
    case 'interrupt.ask-recorded':
    case 'interrupt.vote-recorded':
      return { ...state, notes: [...state.notes, event.data] };
    case 'interrupt.resolved':
      return { ...state, status: 'resolved', ...event.data };
    case 'interrupt.expired':
      return { ...state, status: 'expired', expiredAt: event.data.expiredAt };
    case 'interrupt.cancelled':
      return { ...state, status: 'cancelled', ...event.data };
    case 'interrupt.reminded':
      return { ...state, escalated: event.data.step + 1 };
    case 'interrupt.reassigned': {
      const data = isRecord(state.interrupt.data) ? state.interrupt.data : {};
      return {
        ...state,
        escalated: event.data.step + 1,
        interrupt: { ...state.interrupt, data: { ...data, approversList: [...event.data.approvers] } },
      };
    }
    default:
      return state;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
