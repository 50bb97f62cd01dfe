import type { RefineFeedback } from '@openwop/contracts';
import type { InterruptFacts } from './interrupt.commands';

/** The four exit actions of an approval gate (`ask` does not exit). */
export type ApprovalExitAction = 'accept' | 'reject' | 'refine' | 'edit-accept';

/** One approver's recorded decision; the run log's `approval.received`. */
export interface ApprovalVote {
  readonly type: 'approval.received';
  readonly action: ApprovalExitAction;
  readonly decidedBy: string;
  readonly decidedAt: string;
  readonly feedback?: string;
  readonly refineFeedback?: RefineFeedback;
  readonly editedArtifactData?: unknown;
  /** The attested voter the vote counts for (an `attested` gate); absent when it counts for `decidedBy`. */
  readonly voter?: string;
}

/** One `ask` exchange on an approval gate: recorded, the gate stays pending. */
export interface AskNote {
  readonly type: 'ask';
  readonly question: string;
  readonly askedBy: string;
  readonly askedAt: string;
}

/** Side-channel records kept in order on the interrupt, handed to the engine on the final decision. */
export type InterruptNote = ApprovalVote | AskNote;

export interface InterruptOpened {
  readonly type: 'interrupt.opened';
  readonly data: { readonly interrupt: InterruptFacts };
}

export interface AskRecorded {
  readonly type: 'interrupt.ask-recorded';
  readonly data: AskNote;
}

export interface VoteRecorded {
  readonly type: 'interrupt.vote-recorded';
  readonly data: ApprovalVote;
}

export interface InterruptResolved {
  readonly type: 'interrupt.resolved';
  readonly data: { readonly resumeValue: unknown; readonly resolvedBy: string; readonly resolvedAt: string };
}

export interface InterruptExpired {
  readonly type: 'interrupt.expired';
  readonly data: { readonly expiredAt: string };
}

/**
 * An escalation reminder fired (ADR 0034): the interrupt is still pending at `ageMs`. `approvers`
 * are its approvers at that moment (after a reassignment, the new ones), when it has any, so a
 * webhook consumer routes the reminder to whoever may answer now.
 */
export interface InterruptReminded {
  readonly type: 'interrupt.reminded';
  readonly data: {
    readonly step: number;
    readonly ageMs: number;
    readonly approvers?: readonly string[];
    readonly remindedAt: string;
  };
}

/** An escalation reassigned the interrupt: its approvers are now `approvers` (`data.approversList`). */
export interface InterruptReassigned {
  readonly type: 'interrupt.reassigned';
  readonly data: {
    readonly step: number;
    readonly ageMs: number;
    readonly approvers: readonly string[];
    readonly previousApprovers?: readonly string[];
    readonly reassignedAt: string;
  };
}

export interface InterruptCancelledEvent {
  readonly type: 'interrupt.cancelled';
  readonly data: { readonly cancelledAt: string; readonly reason?: string; readonly parentRunId?: string };
}

/** An approver took (or renewed) the lease on a pending interrupt. */
export interface InterruptClaimedEvent {
  readonly type: 'interrupt.claimed';
  readonly data: { readonly claimedBy: string; readonly claimedAt: string; readonly expiresAt: string };
}

/**
 * A claim ended before the interrupt did: its holder gave it back (`released`), or its lease lapsed
 * (`expired`, decided once by whichever comes first under the row lock: the interrupt timer, the
 * next claim, or a release). `claimedBy` is the holder whose claim ended.
 */
export interface InterruptReleasedEvent {
  readonly type: 'interrupt.released';
  readonly data: {
    readonly releasedBy: string;
    readonly releasedAt: string;
    readonly claimedBy: string;
    readonly reason: 'released' | 'expired';
  };
}

export type InterruptEvent =
  | InterruptClaimedEvent
  | InterruptReleasedEvent
  | InterruptOpened
  | AskRecorded
  | VoteRecorded
  | InterruptResolved
  | InterruptExpired
  | InterruptCancelledEvent
  | InterruptReminded
  | InterruptReassigned;

/** Events that end the interrupt: at most one is ever decided per interrupt. */
export const TERMINAL_INTERRUPT_EVENTS = [
  'interrupt.resolved',
  'interrupt.expired',
  'interrupt.cancelled',
] as const;
