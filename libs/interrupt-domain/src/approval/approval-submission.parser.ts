import { APPROVAL_RESOLVE_ACTIONS, legacyApprovalAction, type RefineFeedback } from '@openwop/contracts';
import { InvalidResumeValue, type Violation } from '../interrupt.errors';
import type { ApprovalExitAction } from '../interrupt.events';
import { isJsonObject } from '../json-value.util';
import type { ApprovalGate, ApprovalResolveAction } from './approval-gate';

/** What one approver submitted, normalized to the 5-action vocabulary; host fields not yet stamped. */
export type ApprovalSubmission =
  | { readonly action: 'ask'; readonly question: string; readonly decidedBy?: string }
  | {
      readonly action: ApprovalExitAction;
      readonly feedback?: string;
      readonly refineFeedback?: RefineFeedback;
      readonly editedArtifactData?: unknown;
      readonly decidedBy?: string;
      /** The attested voter (`voter`), counted instead of the principal on an `attested` gate. */
      readonly voter?: string;
    };

/** Longest attested `voter` name a vote may carry. */
const MAX_VOTER_LENGTH = 256;

const ACTIONS: readonly string[] = APPROVAL_RESOLVE_ACTIONS;

/**
 * Every field an approval answer may carry (interrupt.md's resume union, the legacy `decision`, an
 * ask's `question`, an attested `voter`); `decidedAt` is accepted and overwritten by the host clock.
 * Anything else is not an approval answer: fixtures.md has the host refuse "any other shape" with
 * 400, and a misspelt field (`feedbak`) must not be dropped silently.
 */
const FIELDS: ReadonlySet<string> = new Set([
  'action',
  'decision',
  'feedback',
  'refineFeedback',
  'editedArtifactData',
  'decidedBy',
  'decidedAt',
  'question',
  'voter',
]);

/** Most unknown fields one refusal names. */
const MAX_NAMED_FIELDS = 10;

/**
 * Parses an approval resume value. A body without `action` but with a legacy `decision` is
 * normalized per the spec's table; `rejected` with feedback becomes `refine` when the gate offers
 * it, else `reject` carrying the feedback (so legacy clients can still reject an accept/reject gate
 * with a reason). `timeout` and `cancelled` are host-internal and refused.
 * @throws {@link InvalidResumeValue}
 */
export function parseApprovalSubmission(value: unknown, gate: ApprovalGate): ApprovalSubmission {
  if (!isJsonObject(value)) throw InvalidResumeValue.at('', 'must be an object with an action');
  const unknown = Object.keys(value).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0)
    throw new InvalidResumeValue(
      `resumeValue is not an approval answer: unknown field${unknown.length === 1 ? '' : 's'} ` +
        `${unknown.slice(0, MAX_NAMED_FIELDS).join(', ')}${unknown.length > MAX_NAMED_FIELDS ? ', …' : ''} ` +
        `(allowed: ${[...FIELDS].join(', ')})`,
      unknown.slice(0, MAX_NAMED_FIELDS).map((k) => ({
        path: `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: 'is not a field of an approval answer',
      })),
    );
  const action = value.action === undefined ? legacyAction(value, gate) : value.action;
  if (typeof action !== 'string' || !ACTIONS.includes(action)) {
    throw InvalidResumeValue.at('/action', `must be one of ${ACTIONS.join(', ')}`);
  }
  if (!gate.offered.has(action as ApprovalResolveAction)) {
    throw InvalidResumeValue.at(
      '/action',
      `${action} is not offered by this gate (offered: ${[...gate.offered].join(', ')})`,
    );
  }
  const problems: Violation[] = [];
  const decidedBy = optionalString(value, 'decidedBy', problems);
  const feedback = optionalString(value, 'feedback', problems);
  const voter = gate.voterAttribution === 'attested' ? optionalString(value, 'voter', problems) : undefined;
  if (voter !== undefined && (voter.trim() === '' || voter.length > MAX_VOTER_LENGTH))
    problems.push({
      path: '/voter',
      message: `must be a non-blank string of at most ${MAX_VOTER_LENGTH} characters`,
    });
  const by = decidedBy !== undefined ? { decidedBy } : {};
  const attested = voter !== undefined ? { voter } : {};
  let submission: ApprovalSubmission;
  switch (action as ApprovalResolveAction) {
    case 'ask': {
      const question = value.question;
      if (typeof question !== 'string' || question.trim() === '')
        problems.push({ path: '/question', message: 'an ask needs a non-empty question' });
      submission = { action: 'ask', question: String(question), ...by };
      break;
    }
    case 'refine': {
      const refineFeedback =
        value.refineFeedback === undefined
          ? feedbackAsRefine(feedback)
          : parseRefineFeedback(value.refineFeedback, problems);
      if (!refineFeedback && value.refineFeedback === undefined)
        problems.push({ path: '/refineFeedback', message: 'refine requires refineFeedback' });
      submission = { action: 'refine', ...(refineFeedback ? { refineFeedback } : {}), ...by, ...attested };
      break;
    }
    case 'edit-accept':
      if (value.editedArtifactData === undefined)
        problems.push({ path: '/editedArtifactData', message: 'edit-accept requires editedArtifactData' });
      submission = {
        action: 'edit-accept',
        editedArtifactData: value.editedArtifactData,
        ...by,
        ...attested,
      };
      break;
    case 'accept':
    case 'reject':
      submission = {
        action: action as 'accept' | 'reject',
        ...(feedback !== undefined ? { feedback } : {}),
        ...by,
        ...attested,
      };
      break;
  }
  if (problems.length)
    throw new InvalidResumeValue(
      `resumeValue is not a valid ${String(action)}: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
      problems,
    );
  return submission;
}

function legacyAction(value: Record<string, unknown>, gate: ApprovalGate): string {
  const mapped = legacyApprovalAction(value.decision, value.feedback, gate.offered);
  if (!mapped.ok) throw InvalidResumeValue.at(mapped.path, mapped.message);
  return mapped.action;
}

function feedbackAsRefine(feedback: string | undefined): RefineFeedback | undefined {
  return feedback !== undefined && feedback.trim() !== '' ? { scope: 'whole', text: feedback } : undefined;
}

function parseRefineFeedback(raw: unknown, problems: Violation[]): RefineFeedback | undefined {
  if (!isJsonObject(raw)) {
    problems.push({ path: '/refineFeedback', message: 'must be an object' });
    return undefined;
  }
  const at = (k: string) => `/refineFeedback/${k}`;
  const { scope, sectionPath, itemIds, tags, text } = raw;
  if (scope !== 'whole' && scope !== 'section' && scope !== 'items')
    problems.push({ path: at('scope'), message: 'must be whole, section or items' });
  if (sectionPath !== undefined && typeof sectionPath !== 'string')
    problems.push({ path: at('sectionPath'), message: 'must be a string' });
  if (scope === 'section' && (typeof sectionPath !== 'string' || sectionPath === ''))
    problems.push({ path: at('sectionPath'), message: 'is required when scope is section' });
  if (itemIds !== undefined && !isStringArray(itemIds))
    problems.push({ path: at('itemIds'), message: 'must be an array of strings' });
  if (scope === 'items' && (!isStringArray(itemIds) || itemIds.length === 0))
    problems.push({ path: at('itemIds'), message: 'is required when scope is items' });
  if (tags !== undefined && !isStringArray(tags))
    problems.push({ path: at('tags'), message: 'must be an array of strings' });
  if (text !== undefined && typeof text !== 'string')
    problems.push({ path: at('text'), message: 'must be a string' });
  return raw as unknown as RefineFeedback;
}

function optionalString(
  value: Record<string, unknown>,
  key: string,
  problems: Violation[],
): string | undefined {
  const v = value[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') {
    problems.push({ path: `/${key}`, message: 'must be a string' });
    return undefined;
  }
  return v;
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}
