/** Who caused a message: the authenticated principal behind a command, or a service. */
export interface Actor {
  readonly tenant: string;
  readonly principal: string;
  /** The id of the API key the principal used (never the key), or `token:<kid>` for a signed link. */
  readonly keyId?: string;
  /** Set when the command is one item of a bulk request (the audit log records the route). */
  readonly via?: 'bulk';
  /**
   * The principal's groups, set only by the gateway from its key configuration (never from a
   * request): an approvers list entry `group:<name>` admits a member. Absent: none.
   */
  readonly groups?: readonly string[];
  /**
   * The principal's roles, set only by the gateway from its key configuration (never from a
   * request): a major-2 interrupt's `approverRoleRefs` entry admits a holder (RFC 0104). Absent: none.
   */
  readonly roles?: readonly string[];
}

/**
 * The envelope of every command on the bus. Run events travel as OpenWOP `RunEventDoc`s
 * (their own envelope); correlation and trace context ride in headers.
 */
export interface CommandEnvelope<TType extends string = string, TData = unknown> {
  /**
   * The envelope's version (ADR 0031): writers stamp the current one ({@link versionedCommand}),
   * {@link assertCommand} upcasts older readable ones; none = 0, the shape before versions.
   */
  readonly schemaVersion?: number;
  /** Unique per command; consumers dedupe on it. */
  readonly id: string;
  readonly type: TType;
  readonly occurredAt: string;
  readonly correlationId: string;
  readonly causationId?: string;
  readonly actor: Actor;
  readonly data: TData;
}

/** A command's verdict, sent back on the requester's reply topic. */
export type CommandReply<T = unknown> =
  | { readonly ok: true; readonly data: T; readonly projected?: readonly ProjectedRunMark[] }
  | { readonly ok: false; readonly error: ReplyError };

/**
 * A run whose events a decision wrote and projected in its own transaction, with what it decided
 * through (one process, ADR 0038/0039): once the reply is sent, the read model holds the run up to
 * `lastSequence`, and the requester need not read it back to know.
 */
export interface ProjectedRunMark {
  readonly runId: string;
  readonly lastSequence: number;
}

export interface ReplyError {
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}
