import type { ApprovalResume } from '@openwop/contracts';
import type { CommandContext, ResolveInterrupt } from '../interrupt.commands';
import { InvalidResumeValue, QuorumVoteNeedsPrincipal } from '../interrupt.errors';
import type { ApprovalVote, InterruptEvent } from '../interrupt.events';
import type { PendingInterrupt } from '../interrupt.state';
import { schemaViolations } from '../json-schema.validator';
import { readApprovalGate } from './approval-gate';
import { quorumCloses } from './approval-quorum.policy';
import { parseApprovalSubmission } from './approval-submission.parser';

/** The resume value of a closed approval gate; `votes` lists every vote when the gate needed more than one. */
export type ApprovalGateResume = ApprovalResume & { readonly votes?: readonly Omit<ApprovalVote, 'type'>[] };

/**
 * One approver's answer on a pending approval gate. `decidedBy` is always the authenticated
 * principal and `decidedAt` the handler's clock; an `ask` is recorded and keeps the gate pending;
 * a vote either waits for quorum or closes the gate with the closing vote as the resume value.
 * `resumeSchema` checks what the approver submitted (normalized, before the host stamps
 * `decidedBy`/`decidedAt`/`votes`: the spec's resume layer).
 *
 * One person counts once (ADR 0005): on a quorum gate (`requiredApprovals > 1`) every vote is a
 * principal's, whatever the route (`via`), and a principal votes once. A signed link names no person,
 * so a vote through it on a quorum gate is refused ({@link QuorumVoteNeedsPrincipal}); this is the one
 * place every route's vote passes, so no route can count one person twice.
 * @throws {@link InvalidResumeValue}, {@link QuorumVoteNeedsPrincipal}
 */
export function resolveApproval(
  state: PendingInterrupt,
  value: unknown,
  context: CommandContext,
  via?: ResolveInterrupt['via'],
): InterruptEvent[] {
  const gate = readApprovalGate(state.interrupt.data);
  const submission = parseApprovalSubmission(value, gate);
  if (submission.action !== 'ask' && gate.requiredApprovals > 1 && !namesAPerson(via)) {
    throw new QuorumVoteNeedsPrincipal(state.interrupt.interruptId, gate.requiredApprovals);
  }
  const { principal, now } = context;
  if (submission.decidedBy !== undefined && submission.decidedBy !== principal) {
    throw InvalidResumeValue.at(
      '/decidedBy',
      'must be the authenticated principal; deciding on behalf of another principal is not allowed',
    );
  }
  if (submission.action === 'ask') {
    return [
      {
        type: 'interrupt.ask-recorded',
        data: { type: 'ask', question: submission.question, askedBy: principal, askedAt: now },
      },
    ];
  }
  const { decidedBy: _client, ...submitted } = submission;
  if (state.interrupt.resumeSchema) {
    const violations = schemaViolations(state.interrupt.resumeSchema, submitted);
    if (violations.length)
      throw new InvalidResumeValue('resumeValue does not match the interrupt resumeSchema', violations);
  }
  const votes = state.notes.filter((n): n is ApprovalVote => n.type === 'approval.received');
  // On an attested gate the vote counts for the `voter` the principal names (itself when it names none).
  const voter = submitted.voter ?? principal;
  if (votes.some((v) => (v.voter ?? v.decidedBy) === voter)) {
    throw InvalidResumeValue.at('', `${voter} already voted on this gate; each approver votes once`);
  }
  const vote: ApprovalVote = {
    type: 'approval.received',
    ...submitted,
    decidedBy: principal,
    decidedAt: now,
  };
  const tally = [...votes, vote];
  const recorded: InterruptEvent = { type: 'interrupt.vote-recorded', data: vote };
  if (!quorumCloses(tally, gate)) return [recorded];
  const resumeValue = {
    ...submitted,
    decidedBy: principal,
    decidedAt: now,
    ...(gate.requiredApprovals > 1 ? { votes: tally.map(({ type: _type, ...v }) => v) } : {}),
  } as ApprovalGateResume;
  return [
    recorded,
    { type: 'interrupt.resolved', data: { resumeValue, resolvedBy: principal, resolvedAt: now } },
  ];
}

/**
 * Whether a resolve through `via` is attributed to a person: every route but a signed link carries
 * the authenticated principal (the API key's, also for bulk and the legacy route; an agent's own).
 * A link's principal is `token:<kid>`, the key that signed it, the same for everyone holding a link.
 */
function namesAPerson(via: ResolveInterrupt['via']): boolean {
  return via !== 'token';
}
