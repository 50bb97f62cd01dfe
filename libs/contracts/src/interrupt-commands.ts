import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Min } from 'class-validator';
import type { CommandEnvelope } from './envelope';
import { INTERRUPT_KINDS, type InterruptKind } from './interrupt';

/** `interrupt.open`: the engine asks the interrupt service to hold a new pending interrupt. */
export class OpenInterruptData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
  @IsString() @Length(1, 256) interruptId!: string;
  @IsIn(INTERRUPT_KINDS) kind!: InterruptKind;
  @IsString() @Length(1, 512) key!: string;
  @IsOptional() data?: unknown;
  @IsOptional() @IsObject() resumeSchema?: Record<string, unknown>;
  @IsOptional() @IsInt() @Min(1) timeoutMs?: number;
  @IsString() requestedAt!: string;
  /**
   * For a conversation interrupt: the `conversation.opened` the engine wrote after `node.suspended`
   * (`{eventId, causationId, payload, openedAt, deadlineAt?}`); the interrupt service folds it to
   * hold the conversation's turns.
   */
  @IsOptional() @IsObject() conversation?: Record<string, unknown>;
  /**
   * Host extensions (ADR 0034) the interrupt service merges into its copy of `data`: a
   * clarification's or a custom interrupt's `approversList`, `approverPolicy`, `escalation`, which
   * the wire's `data` of those kinds does not allow. Never part of `interrupt.requested`.
   */
  @IsOptional() @IsObject() hostData?: Record<string, unknown>;
  /**
   * 2 when the run was created under major 2 (ADR 0041): the interrupt service then always enforces
   * the interrupt's approvers, with its RFC 0104 group and role refs (RFC 0173 §B). Absent: major 1.
   */
  @IsOptional() @IsIn([2]) protocolMajor?: 2;
}

/** `interrupt.resolve`: an external caller's answer (gateway, request/reply). */
export class ResolveInterruptData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
  @IsOptional() resumeValue?: unknown;
  /** Which surface it came through: the run-scoped API or a signed token. */
  @IsIn(['api', 'token', 'legacy-approvals', 'agent']) via!: 'api' | 'token' | 'legacy-approvals' | 'agent';
  /** Set by the token surface: the token names one interrupt. */
  @IsOptional() @IsString() interruptId?: string;
  /**
   * Only the verdict this command id got when it was decided before, if it was; never decides.
   * The token surface asks this when a redelivered token command finds its token already spent
   * (perhaps by itself, on the instance that died before answering): anything but that first
   * verdict is refused with `interrupt_already_resolved`.
   */
  @IsOptional() @IsBoolean() replayOnly?: boolean;
  /**
   * The gateway's attestation (RFC 0199 §C.4, ADR 0044): the id of the `credential` interrupt for
   * which it checked, just before sending, that a credential resolves for the run's principal, the
   * provider and every scope. Set only by the gateway's check, never taken from a request body. The
   * interrupt service refuses `{outcome: "authorized"}` on a `credential` interrupt unless this
   * names that very interrupt; every other kind and outcome ignores it.
   */
  @IsOptional() @IsString() @Length(1, 256) credentialCheckedFor?: string;
}

/** `run.cancel` on the interrupt topic: cancel pending interrupts, then forward to the engine. */
export class CancelRunData {
  @IsString() @Length(1, 128) runId!: string;
  @IsOptional() @IsString() @Length(0, 1000) reason?: string;
  /** Set by the engine when a parent run's cancel cascades to this (child) run; never by the gateway. */
  @IsOptional() @IsString() @Length(1, 128) parentRunId?: string;
}

/** `interrupt.expire`: the durable timer fired for an interrupt's deadline. */
export class ExpireInterruptData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 256) interruptId!: string;
}

/** `interrupt.claim`: take or renew a lease on the pending interrupt on (run, node) (gateway, request/reply). */
export class ClaimInterruptData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
  /** Lease length; the interrupt service applies its default and bound. */
  @IsOptional() @IsInt() @Min(1) leaseMs?: number;
}

/** `interrupt.release`: the holder gives its claim back (gateway, request/reply). */
export class ReleaseInterruptData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
}

export type OpenInterruptCommand = CommandEnvelope<'interrupt.open', OpenInterruptData>;
export type ResolveInterruptCommand = CommandEnvelope<'interrupt.resolve', ResolveInterruptData>;
export type CancelRunAtInterruptCommand = CommandEnvelope<'run.cancel', CancelRunData>;
export type ExpireInterruptCommand = CommandEnvelope<'interrupt.expire', ExpireInterruptData>;

export type ClaimInterruptCommand = CommandEnvelope<'interrupt.claim', ClaimInterruptData>;
export type ReleaseInterruptCommand = CommandEnvelope<'interrupt.release', ReleaseInterruptData>;

export type InterruptCommand =
  | ClaimInterruptCommand
  | ReleaseInterruptCommand
  | OpenInterruptCommand
  | ResolveInterruptCommand
  | CancelRunAtInterruptCommand
  | ExpireInterruptCommand;

export const INTERRUPT_COMMAND_DATA = {
  'interrupt.open': OpenInterruptData,
  'interrupt.resolve': ResolveInterruptData,
  'run.cancel': CancelRunData,
  'interrupt.expire': ExpireInterruptData,
  'interrupt.claim': ClaimInterruptData,
  'interrupt.release': ReleaseInterruptData,
} as const;

/** The reply to `interrupt.resolve`. */
export interface ResolveInterruptResult {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  /** `resolved`: the node resumes; `pending`: recorded (an `ask`, or a vote short of quorum). */
  /** `accepted`: a conversation turn was recorded and the node stays suspended. */
  readonly status: 'resolved' | 'pending' | 'accepted';
  readonly conversationId?: string;
  readonly turnIndex?: number;
  readonly messageId?: string;
  /**
   * Someone else held a live claim on the interrupt when this answer was accepted: the holder and
   * the lease's end (the gateway turns it into a warning for the caller).
   */
  readonly claimedBy?: string;
  readonly claimExpiresAt?: string;
}

/** The reply to `interrupt.claim` and `interrupt.release`: the claim as it stands after the command. */
export interface ClaimInterruptResult {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  /** Absent after a release (nobody holds it). */
  readonly claimedBy?: string;
  readonly claimExpiresAt?: string;
}
