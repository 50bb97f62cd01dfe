export {
  type CommandContext,
  type InterruptFacts,
  type OpenInterrupt,
  type ResolveInterrupt,
  type ExpireInterrupt,
  type CancelInterrupt,
  type ClaimInterrupt,
  type ReleaseInterrupt,
  type ExpireClaim,
  type EscalateInterrupt,
  type InterruptCommand,
} from './interrupt.commands';
export {
  TERMINAL_INTERRUPT_EVENTS,
  type ApprovalExitAction,
  type ApprovalVote,
  type AskNote,
  type InterruptNote,
  type InterruptEvent,
  type InterruptOpened,
  type AskRecorded,
  type VoteRecorded,
  type InterruptResolved,
  type InterruptExpired,
  type InterruptCancelledEvent,
  type InterruptClaimedEvent,
  type InterruptReleasedEvent,
  type InterruptReminded,
  type InterruptReassigned,
} from './interrupt.events';
export {
  evolveInterrupt,
  initialInterruptState,
  type InterruptState,
  type InterruptStatus,
  type NoInterrupt,
  type PendingInterrupt,
  type ResolvedInterrupt,
  type ExpiredInterrupt,
  type CancelledInterrupt,
  type InterruptClaim,
} from './interrupt.state';
export {
  InterruptNotFound,
  InterruptAlreadyResolved,
  InterruptCancelled,
  InterruptGone,
  BearerResolutionRequired,
  QuorumVoteNeedsPrincipal,
  InvalidResumeValue,
  CorrelationMismatch,
  InterruptClaimed,
  NotAnApprover,
  type Violation,
} from './interrupt.errors';
export { assertCredentialAttested, CredentialNotResolved } from './credential.resolution';
export { decideInterrupt, escalationDueAt, interruptDecider, requiresBearer } from './interrupt.decider';
export {
  readEscalationPolicy,
  nextEscalationStep,
  openedAtMs,
  type EscalationPolicy,
  type EscalationStep,
  type DueEscalationStep,
} from './escalation/escalation.policy';
export { resumeDecisionOf, TIMEOUT_PRINCIPAL } from './resume-decision';
export { readApprovalGate, type ApprovalGate, type ApprovalResolveAction } from './approval/approval-gate';
export { majorityRejections, quorumCloses, sideOf } from './approval/approval-quorum.policy';
export { type ApprovalGateResume } from './approval/approval.resolution';
export {
  INTERRUPT_STATE_SHAPE,
  interruptStateDocument,
  interruptStateFromDocument,
} from './interrupt-state.version';
export { DEFAULT_CLAIM_LEASE_MS, MAX_CLAIM_LEASE_MS, liveClaim } from './interrupt-claim';
export {
  ENFORCED_REF_KINDS,
  GROUP_PREFIX,
  ROLE_PREFIX,
  admittingEntry,
  assertEligibleApprover,
  enforcedApprovers,
  type Approver,
} from './approver-eligibility';
