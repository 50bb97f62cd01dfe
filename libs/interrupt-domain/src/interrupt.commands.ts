import type { InterruptRecord } from '@openwop/contracts';

/** Who asked, and when: inputs the decider must not read from the environment (STYLE G2). */
export interface CommandContext {
  readonly commandId: string;
  /** ISO timestamp the handler took from its clock. */
  readonly now: string;
  /** The authenticated tenant behind the command. */
  readonly tenant: string;
  /** The authenticated principal behind the command; the only source of `decidedBy`. */
  readonly principal: string;
  /**
   * The principal's groups as the host configured them (the gateway's key registry), never taken
   * from a request; an approvers list entry `group:<name>` admits a member. Absent: none.
   */
  readonly groups?: readonly string[];
  /**
   * The principal's roles as the host configured them, never taken from a request; a major-2
   * interrupt's `approverRoleRefs` entry admits a holder (RFC 0104). Absent: none.
   */
  readonly roles?: readonly string[];
}

/** What the engine requested, as the interrupt service holds it. */
export interface InterruptFacts extends InterruptRecord {
  /** The run's tenant: a resolve from another tenant does not see this interrupt. */
  readonly tenant: string;
  /** `requestedAt + timeoutMs`; absent when the interrupt never times out. */
  readonly deadlineAt?: string;
  /**
   * 2 when the interrupt's run was created under major 2 (ADR 0041): its approver eligibility is
   * then always enforced (RFC 0173 §B). Fixed when the interrupt opens; absent for a major-1 run.
   */
  readonly protocolMajor?: 2;
}

/** `interrupt.open`: hold a new pending interrupt. Idempotent by `interruptId`. */
export interface OpenInterrupt {
  readonly type: 'OpenInterrupt';
  readonly interrupt: Omit<InterruptFacts, 'tenant' | 'deadlineAt'>;
  /** The run was cancelled before this open arrived: the interrupt is born cancelled. */
  readonly runCancelled: boolean;
  readonly context: CommandContext;
}

/** `interrupt.resolve`: an external answer for the interrupt pending on (run, node). */
export interface ResolveInterrupt {
  readonly type: 'ResolveInterrupt';
  readonly runId: string;
  readonly nodeId: string;
  /** Set by the signed-token surface, whose token names one interrupt. */
  readonly interruptId?: string;
  readonly resumeValue: unknown;
  /** The surface the answer came through; `token` is refused by an interrupt that requires a bearer. */
  readonly via?: 'api' | 'token' | 'legacy-approvals' | 'agent';
  /**
   * The gateway's attestation that a credential resolves for this `credential` interrupt (its id),
   * checked just before sending; `authorized` is refused without it (RFC 0199 §C.4, ADR 0044).
   */
  readonly credentialCheckedFor?: string;
  readonly context: CommandContext;
}

/** `interrupt.expire`: the durable timer reached the interrupt's deadline. */
export interface ExpireInterrupt {
  readonly type: 'ExpireInterrupt';
  readonly interruptId: string;
  readonly context: CommandContext;
}

/**
 * The durable timer reached step `step` of the interrupt's escalation policy (a reminder or a
 * reassignment, ADR 0034). Decided once: only when `step` is the next undone step, and then that
 * step and every later one already due, in order, each its own event.
 */
export interface EscalateInterrupt {
  readonly type: 'EscalateInterrupt';
  readonly interruptId: string;
  readonly step: number;
  readonly context: CommandContext;
}

/** `run.cancel`: the run is being cancelled; its pending interrupt stops accepting answers. */
export interface CancelInterrupt {
  readonly type: 'CancelInterrupt';
  readonly reason?: string;
  /** Set when the cancel cascades from this parent run (the interrupt is then gone, not just cancelled). */
  readonly parentRunId?: string;
  readonly context: CommandContext;
}

/** `interrupt.claim`: the principal takes (or renews) a lease on the pending interrupt on (run, node). */
export interface ClaimInterrupt {
  readonly type: 'ClaimInterrupt';
  readonly runId: string;
  readonly nodeId: string;
  /** Lease length; default and bound in `interrupt-claim.ts`. */
  readonly leaseMs?: number;
  readonly context: CommandContext;
}

/** `interrupt.release`: the holder gives its claim back. */
export interface ReleaseInterrupt {
  readonly type: 'ReleaseInterrupt';
  readonly runId: string;
  readonly nodeId: string;
  readonly context: CommandContext;
}

/**
 * The interrupt timer reached the end of the claim's lease (`interrupts.claim_expires_at`): a lapsed
 * claim still in the state ends with an `expired` release. Decided once; a renewed, released or
 * already-ended claim decides nothing.
 */
export interface ExpireClaim {
  readonly type: 'ExpireClaim';
  readonly interruptId: string;
  readonly context: CommandContext;
}

export type InterruptCommand =
  | OpenInterrupt
  | ResolveInterrupt
  | ExpireInterrupt
  | CancelInterrupt
  | ClaimInterrupt
  | ReleaseInterrupt
  | ExpireClaim
  | EscalateInterrupt;
