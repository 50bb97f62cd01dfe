import { suspendReasonFor, type InterruptRecord } from '@openwop/contracts';
import { approvalActionOf, approvalDecisionOf } from './approval-resume';
import { decideConversation, initialConversationState } from '@openwop/conversation-domain';
import { runEventId, type EventWriter } from './event-writer';
import { lowConfidenceSuspension } from './low-confidence';
import type { KeyedInterrupt } from './node-context';
import type { PendingInterrupt } from './run.state';

/**
 * What the interrupt service must hold for a new interrupt: the `interrupt.open` command's data
 * (`OpenInterruptData`), equal to the `interrupt.requested` payload.
 */
export interface OpenInterruptRequest extends InterruptRecord {
  /** A conversation interrupt's `conversation.opened` (event id, causation, payload, openedAt, deadlineAt). */
  readonly conversation?: Record<string, unknown>;
  /** Host extensions the interrupt service adds to its copy of `data` (see `InterruptRequest.hostData`). */
  readonly hostData?: Record<string, unknown>;
  /**
   * 2 when the run is of major 2 (ADR 0041): the interrupt service then always enforces the
   * interrupt's approvers (RFC 0173 §B). Never part of `interrupt.requested`.
   */
  readonly protocolMajor?: 2;
}

/**
 * Emits the suspension of `nodeId` on a new interrupt: `interrupt.requested`, the legacy
 * `approval.requested` / `clarification.requested` for those kinds, then `node.suspended`.
 * Returns what the interrupt service must be told.
 *
 * On a run of major 2 (ADR 0041) the kind-specific event is the v2 alias: its payload is the
 * `interrupt.requested` payload verbatim (v2 interrupt.md §Events, events.md: a `$ref` alias of
 * `interruptRequested`). A major-1 run keeps the v1 payloads.
 */
export function emitSuspension(
  w: EventWriter,
  nodeId: string,
  request: KeyedInterrupt,
): OpenInterruptRequest {
  const { runId, interruptCounter } = w.state;
  const open: OpenInterruptRequest = {
    runId,
    nodeId,
    interruptId: `${runId}:${nodeId}:${interruptCounter}`,
    kind: request.kind,
    key: request.key,
    data: request.data,
    ...(request.resumeSchema !== undefined ? { resumeSchema: request.resumeSchema } : {}),
    ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    requestedAt: w.now,
  };
  const { interruptId, kind } = open;
  w.emit('interrupt.requested', nodeId, open);
  const data = request.data as Record<string, unknown>;
  if (w.state.protocolMajor === 2) {
    if (kind === 'approval' || kind === 'clarification') w.emit(`${kind}.requested`, nodeId, open);
  } else if (kind === 'approval') {
    w.emit('approval.requested', nodeId, {
      nodeId,
      interruptId,
      ...pick(data, [
        'artifactId',
        'artifactType',
        'title',
        'description',
        'actions',
        'approversList',
        'requiredApprovals',
        'rejectionPolicy',
      ]),
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    });
  } else if (kind === 'clarification') {
    w.emit('clarification.requested', nodeId, {
      nodeId,
      interruptId,
      ...pick(data, ['questions', 'contextType']),
    });
  }
  const suspended = w.emit('node.suspended', nodeId, {
    nodeId,
    reason: suspendReasonFor(kind),
    interruptId,
    kind,
    key: request.key,
    ...lowConfidenceSuspension(kind, request.data, w.state.workflow, nodeId),
  });
  const held: OpenInterruptRequest = {
    ...open,
    ...(request.hostData && Object.keys(request.hostData).length > 0 ? { hostData: request.hostData } : {}),
    ...(w.state.protocolMajor === 2 ? { protocolMajor: 2 as const } : {}),
  };
  if (kind !== 'conversation.exchange') return held;
  return { ...held, conversation: emitOpened(w, nodeId, request, suspended.eventId) };
}

/**
 * RFC 0005 §B: a conversation suspension opens its conversation right after `node.suspended`
 * (its causation). The conversation aggregate decides the payload; the engine stamps the run-log id.
 */
function emitOpened(
  w: EventWriter,
  nodeId: string,
  request: KeyedInterrupt,
  suspendedId: string,
): Record<string, unknown> {
  const data = (request.data ?? {}) as { conversationId?: unknown; prompt?: unknown };
  const opening = request.conversation ?? {};
  const conversationId =
    typeof data.conversationId === 'string'
      ? data.conversationId
      : `${w.state.runId}:${nodeId}:${w.state.active?.visit ?? 0}`;
  const eventId = runEventId(w.state.runId, w.state.lastSequence + 1);
  const initial =
    opening.initialTurn ??
    (typeof data.prompt === 'string'
      ? { from: 'system', role: 'system' as const, content: data.prompt }
      : undefined);
  const [opened] = decideConversation(
    {
      type: 'OpenConversation',
      runId: w.state.runId,
      nodeId,
      attempt: w.state.active?.visit ?? 0,
      ...(opening.agentId !== undefined ? { agentId: opening.agentId } : {}),
      ...(opening.participants ? { participants: opening.participants } : {}),
      maxParticipants: Number.POSITIVE_INFINITY,
      ...(opening.turnSchema ? { turnSchema: opening.turnSchema } : {}),
      ...(initial ? { initialTurn: { messageId: `${conversationId}:0:${initial.role}`, ...initial } } : {}),
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
      now: w.now,
      causationId: suspendedId,
      eventId,
    },
    initialConversationState(),
  );
  if (!opened || opened.type !== 'conversation.opened')
    throw new Error(`conversation ${conversationId} did not open`);
  const payload = {
    ...opened.data.payload,
    conversationId,
    initialTurn: { ...opened.data.payload.initialTurn },
  };
  w.emit('conversation.opened', nodeId, payload);
  return {
    ...opened.data,
    payload,
    ...(opening.maxSilenceMs !== undefined ? { maxSilenceMs: opening.maxSilenceMs } : {}),
  };
}

/** The decision of the interrupt service, as `run.resume` carries it. */
export interface InterruptOutcome {
  readonly outcome: 'resolved' | 'timeout';
  readonly resumeValue?: unknown;
  readonly resolvedBy: string;
  readonly resolvedAt: string;
  readonly notes?: readonly unknown[];
}

/**
 * Emits the resolution of the pending interrupt: the side-channel notes (approval votes as
 * `approval.received`, anything else as `log.appended`), `interrupt.resolved`, the legacy
 * `approval.received` / `clarification.resolved`, then `node.resumed`.
 *
 * On a run of major 2 (ADR 0041) the kind-specific event is the v2 alias, its payload the
 * `interrupt.resolved` payload verbatim (a `$ref` alias of `interruptResolved`), and a vote is the
 * host's record (`log.appended`), never an `approval.received`: a vote that does not decide the gate
 * emits nothing shaped as a resolution (RFC 0223 §A). A major-1 run keeps the v1 payloads.
 */
export function emitResolution(w: EventWriter, p: PendingInterrupt, o: InterruptOutcome): void {
  const { nodeId, interruptId } = p;
  const v2 = w.state.protocolMajor === 2;
  const votes = (o.notes ?? [])
    .map((note) => emitNote(w, p, note, o, v2))
    .filter((v): v is Vote => v !== undefined);
  const timeout = o.outcome === 'timeout';
  const resumeValue = timeout ? null : (o.resumeValue ?? null);
  const approval = p.kind === 'approval' ? approvalFields(resumeValue, timeout, gateActionsOf(p)) : {};
  const resolved = w.emit('interrupt.resolved', nodeId, {
    runId: w.state.runId,
    nodeId,
    interruptId,
    kind: p.kind,
    key: p.key,
    // interrupt-profiles.md (RFC 0093): a timed-out approval gate resolves as rejected, reason timeout.
    outcome: timeout && p.kind === 'approval' ? 'rejected' : o.outcome,
    ...(timeout ? { reason: 'timeout' } : {}),
    resumeValue,
    resolvedAt: o.resolvedAt,
    resolvedBy: o.resolvedBy,
    ...approval,
  });
  if (v2) {
    const alias = p.kind === 'approval' ? 'approval.received' : 'clarification.resolved';
    if (p.kind === 'approval' || (p.kind === 'clarification' && !timeout))
      w.emit(alias, nodeId, { ...(resolved.payload as Record<string, unknown>) });
  } else if (p.kind === 'approval') {
    const r = (resumeValue ?? {}) as Record<string, unknown>;
    const action = timeout ? 'timeout' : approvalActionOf(resumeValue, gateActionsOf(p));
    const decidedBy = typeof r.decidedBy === 'string' ? r.decidedBy : o.resolvedBy;
    const last = votes[votes.length - 1];
    if (!last || last.action !== action || last.decidedBy !== decidedBy) {
      w.emit('approval.received', nodeId, {
        nodeId,
        interruptId,
        ...pick(r, ['feedback', 'refineFeedback', 'editedArtifactData', 'comment']),
        action,
        decidedBy,
        decidedAt: typeof r.decidedAt === 'string' ? r.decidedAt : o.resolvedAt,
      });
    }
  } else if (p.kind === 'clarification' && !timeout) {
    w.emit('clarification.resolved', nodeId, {
      nodeId,
      interruptId,
      answers: answersMap(resumeValue),
      answeredBy: o.resolvedBy,
    });
  }
  w.emit('node.resumed', nodeId, { nodeId, interruptId });
}

interface Vote {
  readonly action: string;
  readonly decidedBy: string;
}

const VOTE_TYPES = ['vote', 'approval.vote', 'approval.received'];

function emitNote(
  w: EventWriter,
  p: PendingInterrupt,
  note: unknown,
  o: InterruptOutcome,
  v2: boolean,
): Vote | undefined {
  const n = (typeof note === 'object' && note !== null ? note : { value: note }) as Record<string, unknown>;
  const type = n.type ?? n.kind;
  const isVote =
    VOTE_TYPES.includes(type as string) ||
    (p.kind === 'approval' && typeof n.action === 'string' && n.action !== 'ask' && type === undefined);
  if (isVote) {
    const { type: _t, kind: _k, ...rest } = n;
    const decidedBy = stringOr(n.decidedBy, stringOr(n.voter, o.resolvedBy));
    const action = stringOr(n.action, 'accept');
    if (v2) {
      w.emit('log.appended', undefined, {
        level: 'info',
        message: `vote on interrupt ${p.interruptId}`,
        nodeId: p.nodeId,
        fields: {
          interruptId: p.interruptId,
          vote: { ...rest, action, decidedBy, decidedAt: stringOr(n.decidedAt, o.resolvedAt) },
        },
      });
      return { action, decidedBy };
    }
    w.emit('approval.received', p.nodeId, {
      ...rest,
      nodeId: p.nodeId,
      interruptId: p.interruptId,
      action,
      decidedBy,
      decidedAt: stringOr(n.decidedAt, o.resolvedAt),
    });
    return { action, decidedBy };
  }
  const ask = type === 'ask' || n.action === 'ask' || 'question' in n;
  // No top-level nodeId: a note is the host's record, not an event the node emitted.
  w.emit('log.appended', undefined, {
    level: 'info',
    message: ask ? `ask on interrupt ${p.interruptId}` : `note on interrupt ${p.interruptId}`,
    nodeId: p.nodeId,
    fields: { interruptId: p.interruptId, note: n },
  });
  return undefined;
}

function approvalFields(
  resumeValue: unknown,
  timeout: boolean,
  gateActions: unknown,
): Record<string, unknown> {
  if (timeout) return { action: 'timeout', decision: 'rejected', reason: 'timeout' };
  const action = approvalActionOf(resumeValue, gateActions);
  return { action, decision: approvalDecisionOf(action) };
}

/** The `actions` an approval interrupt's gate offered (its `data.actions`). */
function gateActionsOf(p: PendingInterrupt): unknown {
  return typeof p.data === 'object' && p.data !== null
    ? (p.data as { actions?: unknown }).actions
    : undefined;
}

/** Clarification answers as an object keyed by question id (`clarificationResolved.answers` is an object). */
export function answersMap(resumeValue: unknown): Record<string, unknown> {
  const answers = (resumeValue as { answers?: unknown } | null)?.answers;
  if (Array.isArray(answers)) {
    return Object.fromEntries(
      answers
        .filter((a): a is { id: string; answer: unknown } => typeof (a as { id?: unknown })?.id === 'string')
        .map((a) => [a.id, a.answer]),
    );
  }
  return typeof answers === 'object' && answers !== null ? (answers as Record<string, unknown>) : {};
}

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]]));
}

function stringOr(v: unknown, fallback: string): string {
  return typeof v === 'string' && v !== '' ? v : fallback;
}
