import { DomainError } from '@openwop/kernel';

/** One problem with a resume value; `path` is a JSON pointer into the resume value. */
export interface Violation {
  readonly path: string;
  readonly message: string;
}

/** No pending interrupt on that run and node for this caller (or a token naming another interrupt). */
export class InterruptNotFound extends DomainError {
  constructor(runId: string, nodeId: string) {
    super('interrupt_not_found', `No interrupt is pending on node ${nodeId} of run ${runId}.`, {
      runId,
      nodeId,
    });
  }
}

/** The interrupt was already decided: resolved by someone else, or expired. */
export class InterruptAlreadyResolved extends DomainError {
  constructor(interruptId: string, status: 'resolved' | 'expired') {
    super('interrupt_already_resolved', `Interrupt ${interruptId} is already ${status}.`, {
      interruptId,
      status,
    });
  }
}

/**
 * The run was cancelled while the interrupt was pending: the cancel is the interrupt's one outcome,
 * so a later resolve is `409 interrupt_already_resolved` (`status: cancelled`) on every surface.
 * interrupt.md (v1) §Error responses names `422 interrupt_cancelled` for the run-scoped surface;
 * RFC 0213 records that no conforming host emits it, and v2 answers 409 (docs/conformance.md).
 */
export class InterruptCancelled extends DomainError {
  constructor(interruptId: string) {
    super('interrupt_already_resolved', `Interrupt ${interruptId} was cancelled with its run.`, {
      interruptId,
      status: 'cancelled',
    });
  }
}

/**
 * The interrupt was invalidated by a parent run's cancel cascading to its run
 * (`interrupt-profiles.md` §cascade-cancel: `410 interrupt_gone`).
 */
export class InterruptGone extends DomainError {
  constructor(interruptId: string, parentRunId: string) {
    super(
      'interrupt_gone',
      `Interrupt ${interruptId} is gone: its run was cancelled with parent run ${parentRunId}.`,
      {
        interruptId,
        parentRunId,
      },
    );
  }
}

/** A signed callback token for an interrupt that only an authenticated caller may resolve (auth-required profile). */
export class BearerResolutionRequired extends DomainError {
  constructor(interruptId: string) {
    super(
      'forbidden',
      `Interrupt ${interruptId} requires an authenticated resolve (Authorization: Bearer) on POST /v1/runs/{runId}/interrupts/{nodeId}; its callback token cannot resolve it.`,
      { interruptId },
    );
  }
}

/**
 * A vote through a signed link (the token route, the page behind it) on a gate that needs more than
 * one approver: a link is a bearer credential that names no person, so its vote cannot be one of the
 * distinct principals a quorum counts (ADR 0005). Whoever holds the link votes with their own
 * credential on the run-scoped route instead, where the vote is theirs and counts once.
 */
export class QuorumVoteNeedsPrincipal extends DomainError {
  constructor(interruptId: string, requiredApprovals: number) {
    super(
      'forbidden',
      `Interrupt ${interruptId} needs ${requiredApprovals} distinct approvers, and a signed link names no approver, so it cannot vote on it. Vote as yourself: POST /v1/runs/{runId}/interrupts/{nodeId} with your own API key (Authorization: Bearer).`,
      { interruptId, requiredApprovals, reason: 'quorum_vote_requires_principal' },
    );
  }
}

/** The resume value breaks the interrupt's rules; nothing is recorded and the interrupt stays pending. */
export class InvalidResumeValue extends DomainError {
  constructor(
    message: string,
    readonly violations: readonly Violation[],
  ) {
    super('validation_error', message, { errors: violations });
  }

  static at(path: string, message: string): InvalidResumeValue {
    return new InvalidResumeValue(`resumeValue${path ? ` ${path}` : ''} ${message}`, [{ path, message }]);
  }
}

/** An external event whose correlation names other values than the interrupt's; the run keeps waiting. */
export class CorrelationMismatch extends DomainError {
  constructor(interruptId: string, eventType: string | undefined, mismatchedKeys: readonly string[]) {
    super(
      'correlation_mismatch',
      `The event's correlation does not match interrupt ${interruptId} (${mismatchedKeys.join(', ')}).`,
      {
        interruptId,
        ...(eventType !== undefined ? { eventType } : {}),
        mismatchedKeys,
      },
    );
  }
}

/** Someone else holds a live claim on the interrupt (the inbox ADR): the holder and when the lease ends. */
export class InterruptClaimed extends DomainError {
  constructor(interruptId: string, claim: { readonly claimedBy: string; readonly expiresAt: string }) {
    super(
      'interrupt_claimed',
      `Interrupt ${interruptId} is claimed by ${claim.claimedBy} until ${claim.expiresAt}.`,
      {
        interruptId,
        claimedBy: claim.claimedBy,
        claimExpiresAt: claim.expiresAt,
      },
    );
  }
}

/** The gate enforces its `approversList` (`approverPolicy: 'enforced'`) and the principal is not on it. */
export class NotAnApprover extends DomainError {
  constructor(interruptId: string, principal: string) {
    super('forbidden', `${principal} is not on the approvers list of interrupt ${interruptId}.`, {
      interruptId,
    });
  }
}
