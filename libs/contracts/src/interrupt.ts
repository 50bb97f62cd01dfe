/**
 * The nine interrupt kinds (v2 `interrupt.md`): v1's eight (RFC 0094) and RFC 0199's `credential`,
 * which only v2 discovery advertises ({@link V1_INTERRUPT_KINDS}).
 */
export const INTERRUPT_KINDS = [
  'approval',
  'clarification',
  'external-event',
  'custom',
  'conversation.start',
  'conversation.exchange',
  'conversation.close',
  'low-confidence',
  'credential',
] as const;

export type InterruptKind = (typeof INTERRUPT_KINDS)[number];

/** The kinds of v1's `interrupt.md` (what v1 discovery lists): all but `credential`. */
export const V1_INTERRUPT_KINDS: readonly InterruptKind[] = INTERRUPT_KINDS.filter((k) => k !== 'credential');

/** The five approval actions; `edit` in a gate's `actions` offers the `edit-accept` resolution. */
export const APPROVAL_ACTIONS = ['accept', 'reject', 'refine', 'edit', 'ask'] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

export interface ApprovalData {
  readonly artifactId: string;
  readonly artifactType: string;
  readonly title: string;
  readonly description?: string;
  readonly artifactData: unknown;
  readonly actions: readonly ApprovalAction[];
  readonly requiredApprovals?: number;
  readonly approversList?: readonly string[];
  readonly rejectionPolicy?: 'single-veto' | 'majority';
}

export interface RefineFeedback {
  readonly scope: 'whole' | 'section' | 'items';
  readonly sectionPath?: string;
  readonly itemIds?: readonly string[];
  readonly tags?: readonly string[];
  readonly text?: string;
}

export type ApprovalResume =
  | {
      readonly action: 'accept' | 'reject';
      readonly feedback?: string;
      readonly decidedBy: string;
      readonly decidedAt: string;
    }
  | {
      readonly action: 'refine';
      readonly refineFeedback: RefineFeedback;
      readonly decidedBy: string;
      readonly decidedAt: string;
    }
  | {
      readonly action: 'edit-accept';
      readonly editedArtifactData: unknown;
      readonly decidedBy: string;
      readonly decidedAt: string;
    };

/** What a node passes to `ctx.interrupt()`; `key` is derived when absent. */
export interface InterruptPayload {
  readonly kind: InterruptKind;
  readonly key?: string;
  readonly resumeSchema?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly data: unknown;
}

/** The pending interrupt as every service sees it once requested. */
export interface InterruptRecord {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  readonly kind: InterruptKind;
  readonly key: string;
  readonly data: unknown;
  readonly resumeSchema?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly requestedAt: string;
}

/** Run status while suspended on an interrupt of `kind` (`interrupt-profiles.md`, RFC 0005). */
export function waitingStatusFor(
  kind: InterruptKind,
): 'waiting-approval' | 'waiting-input' | 'waiting-external' {
  switch (kind) {
    case 'clarification':
    case 'custom':
    case 'credential':
      return 'waiting-input';
    case 'external-event':
      return 'waiting-external';
    default:
      return 'waiting-approval';
  }
}

/** `node.suspended.payload.reason` for an interrupt of `kind`. */
export function suspendReasonFor(kind: InterruptKind): string {
  switch (kind) {
    case 'conversation.start':
    case 'conversation.exchange':
    case 'conversation.close':
      return 'conversation-input';
    default:
      return kind;
  }
}
