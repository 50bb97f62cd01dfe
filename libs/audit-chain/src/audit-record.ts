/**
 * The surface a decision came through: the API (a bearer key), a signed link, a bulk request, the
 * durable timer, an escalation policy, or a run cancel.
 */
export const AUDIT_ROUTES = ['api', 'token-link', 'bulk', 'timeout', 'escalation', 'cancel'] as const;
export type AuditRoute = (typeof AUDIT_ROUTES)[number];

/** What was decided. */
export const AUDIT_ACTIONS = ['resolve', 'vote', 'expire', 'cancel', 'reassign'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * One decision as the deciding service states it (the interrupt service, in the transaction that
 * decides), and as the audit log records it. Never a secret: the API key's id, not the key; the
 * answer as its approval action and a digest, not its text.
 */
export interface AuditFact {
  /** Unique per decision; the audit log records a fact once, however often it is delivered. */
  readonly factId: string;
  readonly tenant: string;
  /** When it was decided (ISO 8601). */
  readonly at: string;
  /** The authenticated principal, `token:<kid>` for a signed link, `system:*` for the host itself. */
  readonly who: string;
  /** The API key's id, `token:<kid>` for a signed link; absent for the host's own decisions. */
  readonly keyId?: string;
  readonly route: AuditRoute;
  readonly action: AuditAction;
  readonly runId: string;
  readonly interruptId?: string;
  readonly nodeId?: string;
  readonly kind?: string;
  /** `resolved` or `pending` (a vote short of quorum), `timeout`, `cancelled`. */
  readonly outcome?: string;
  /** An approval's action (`accept`, `reject`, …) when the answer names one. */
  readonly answerAction?: string;
  /** `sha256:<hex>` of the canonical JSON of the answer: proves what was answered without holding it. */
  readonly answerDigest?: string;
  /** A cancel's reason, as the caller gave it. */
  readonly reason?: string;
  /** The interrupts a cancel closed. */
  readonly interrupts?: readonly string[];
  /**
   * On an enforced approvers list: the entry that admitted `who`, itself or the `group:<name>` it
   * answered as a member of (the membership the host resolved at that moment).
   */
  readonly admittedAs?: string;
}

/** One line of an audit export (NDJSON): the chained record and where it sits in its tenant's chain. */
export interface AuditLine {
  readonly tenant: string;
  /** Gapless per tenant, first record 1. */
  readonly seq: number;
  readonly at: string;
  readonly record: AuditFact;
  /** The previous record's `hash`; {@link GENESIS_HASH} for seq 1. */
  readonly prev_hash: string;
  readonly hash: string;
}

/** The `prev_hash` of a tenant's first record. */
export const GENESIS_HASH = '0'.repeat(64);
