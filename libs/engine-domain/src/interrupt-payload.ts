import {
  credentialDataProblems,
  credentialQuestionProblems,
  credentialSchemaProblems,
  INTERRUPT_KINDS,
  type InterruptKind,
} from '@openwop/contracts';
import { NodeError, type InterruptRequest, type SuspendRequest } from './node';

const KNOWN_INTERRUPT_KINDS: readonly InterruptKind[] = INTERRUPT_KINDS;

/** Approval actions a gate may offer: the five of `interrupt.md` plus the schema's `edit-accept` spelling of `edit`. */
const GATE_ACTIONS = ['accept', 'reject', 'refine', 'edit', 'edit-accept', 'ask'];

interface Violation {
  readonly path: string;
  readonly message: string;
}

/** Maps the `suspend` aliases onto the canonical payload; the canonical name wins where both are set. */
export function fromSuspendRequest(request: SuspendRequest): InterruptRequest {
  const kind = request.kind ?? request.reason;
  const key = request.key ?? request.resumeKey;
  const resumeSchema = request.resumeSchema ?? request.answerSchema;
  return {
    kind: kind as InterruptKind,
    ...(key !== undefined ? { key } : {}),
    ...(resumeSchema !== undefined ? { resumeSchema } : {}),
    ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    data: request.data,
  };
}

/**
 * Checks an interrupt payload against `suspend-request.schema.json` for its kind.
 * @throws {@link NodeError} `validation_error` with `details.errors` naming each bad field.
 */
export function assertInterruptPayload(payload: InterruptRequest): void {
  const problems: Violation[] = [];
  const p = payload as unknown as Record<string, unknown>;
  if (!KNOWN_INTERRUPT_KINDS.includes(payload.kind))
    problems.push({ path: '/kind', message: `unknown interrupt kind ${String(p.kind)}` });
  if (p.key !== undefined && !isString(p.key, 1, 256))
    problems.push({ path: '/key', message: 'must be a string of 1..256 characters' });
  if (p.timeoutMs !== undefined && !(Number.isInteger(p.timeoutMs) && (p.timeoutMs as number) >= 1)) {
    problems.push({ path: '/timeoutMs', message: 'must be a positive integer (milliseconds)' });
  }
  if (p.resumeSchema !== undefined && !isObject(p.resumeSchema))
    problems.push({ path: '/resumeSchema', message: 'must be an object' });
  if (!isObject(p.data)) problems.push({ path: '/data', message: 'must be an object' });
  else if (KNOWN_INTERRUPT_KINDS.includes(payload.kind)) problems.push(...dataProblems(payload.kind, p.data));
  // RFC 0199 §C.6: no interrupt of any kind asks for credential material.
  problems.push(...credentialSchemaProblems(p.resumeSchema, '/resumeSchema'));
  if (isObject(p.data) && payload.kind === 'clarification')
    problems.push(...credentialQuestionProblems(p.data.questions, '/data/questions'));
  if (problems.length) {
    throw new NodeError(
      'validation_error',
      `invalid ${String(p.kind)} interrupt payload: ${problems.map((v) => `${v.path} ${v.message}`).join('; ')}`,
      {
        errors: problems,
      },
    );
  }
}

function dataProblems(kind: InterruptKind, d: Record<string, unknown>): Violation[] {
  const out: Violation[] = [];
  const need = (field: string, ok: boolean, message: string) => {
    if (!ok) out.push({ path: `/data/${field}`, message });
  };
  const only = (...fields: string[]) => {
    for (const k of Object.keys(d))
      if (!fields.includes(k)) out.push({ path: `/data/${k}`, message: 'is not allowed' });
  };
  switch (kind) {
    case 'approval':
      need('artifactId', isString(d.artifactId, 1), 'must be a non-empty string');
      need('artifactType', isString(d.artifactType, 1), 'must be a non-empty string');
      need('title', isString(d.title, 1), 'must be a non-empty string');
      need(
        'description',
        d.description === undefined || typeof d.description === 'string',
        'must be a string',
      );
      need(
        'actions',
        isActions(d.actions),
        `must be a non-empty array of distinct actions from ${GATE_ACTIONS.join(', ')}`,
      );
      need(
        'requiredApprovals',
        d.requiredApprovals === undefined ||
          (Number.isInteger(d.requiredApprovals) && (d.requiredApprovals as number) >= 1),
        'must be an integer >= 1',
      );
      need(
        'approversList',
        d.approversList === undefined || isStringArray(d.approversList),
        'must be an array of strings',
      );
      // RFC 0104: opaque group and role refs; a major-2 run enforces their members (RFC 0173 §B).
      for (const refs of ['approverGroupRefs', 'approverRoleRefs'] as const)
        need(refs, d[refs] === undefined || isRefList(d[refs]), 'must be an array of non-empty strings');
      need(
        'rejectionPolicy',
        d.rejectionPolicy === undefined ||
          d.rejectionPolicy === 'single-veto' ||
          d.rejectionPolicy === 'majority',
        'must be single-veto or majority',
      );
      need(
        'voterAttribution',
        d.voterAttribution === undefined ||
          d.voterAttribution === 'principal' ||
          d.voterAttribution === 'attested',
        'must be principal or attested',
      );
      need('resolveAuth', d.resolveAuth === undefined || d.resolveAuth === 'bearer', 'must be bearer');
      // Host extension (ADR 0035): `enforced` makes approversList a rule at claim and resolve time.
      need(
        'approverPolicy',
        d.approverPolicy === undefined || d.approverPolicy === 'advisory' || d.approverPolicy === 'enforced',
        'must be advisory or enforced',
      );
      break;
    case 'clarification':
      only('questions', 'contextType');
      need('questions', isQuestions(d.questions), 'must be a non-empty array of {id, question, schema?}');
      need(
        'contextType',
        d.contextType === undefined || typeof d.contextType === 'string',
        'must be a string',
      );
      break;
    case 'external-event':
      only('eventType', 'correlation');
      need('eventType', typeof d.eventType === 'string', 'must be a string');
      need('correlation', isObject(d.correlation), 'must be an object');
      break;
    case 'custom':
      only('customKind', 'payload');
      need('customKind', isString(d.customKind, 1), 'must be a non-empty string');
      break;
    case 'conversation.start':
      only('conversationId', 'title', 'initialPrompt');
      need('conversationId', isString(d.conversationId, 1, 256), 'must be a string of 1..256 characters');
      need('title', d.title === undefined || typeof d.title === 'string', 'must be a string');
      need(
        'initialPrompt',
        d.initialPrompt === undefined || typeof d.initialPrompt === 'string',
        'must be a string',
      );
      break;
    case 'conversation.exchange':
      only('conversationId', 'prompt', 'outcomeSchema', 'turnIndex');
      need('conversationId', isString(d.conversationId, 1, 256), 'must be a string of 1..256 characters');
      need('prompt', isString(d.prompt, 1), 'must be a non-empty string');
      need('outcomeSchema', d.outcomeSchema === undefined || isObject(d.outcomeSchema), 'must be an object');
      need(
        'turnIndex',
        d.turnIndex === undefined || (Number.isInteger(d.turnIndex) && (d.turnIndex as number) >= 0),
        'must be an integer >= 0',
      );
      break;
    case 'conversation.close':
      only('conversationId', 'reason');
      need('conversationId', isString(d.conversationId, 1, 256), 'must be a string of 1..256 characters');
      need('reason', d.reason === undefined || typeof d.reason === 'string', 'must be a string');
      break;
    case 'low-confidence':
      only('agentId', 'threshold', 'observed', 'decision');
      need('agentId', isString(d.agentId, 3, 256), 'must be a string of 3..256 characters');
      need('threshold', isUnit(d.threshold), 'must be a number in [0, 1]');
      need('observed', isUnit(d.observed), 'must be a number in [0, 1]');
      break;
    case 'credential':
      out.push(...credentialDataProblems(d));
      break;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isString(v: unknown, min = 0, max = Infinity): v is string {
  return typeof v === 'string' && v.length >= min && v.length <= max;
}

function isStringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isUnit(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1;
}

function isActions(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    new Set(v).size === v.length &&
    v.every((a) => GATE_ACTIONS.includes(a as string))
  );
}

function isQuestions(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.every(
      (q) =>
        isObject(q) &&
        isString(q.id, 1) &&
        isString(q.question, 1) &&
        (q.schema === undefined || isObject(q.schema)) &&
        Object.keys(q).every((k) => k === 'id' || k === 'question' || k === 'schema'),
    )
  );
}

/** An RFC 0104 ref list: opaque, non-empty strings (each at most 200 characters, like a group name). */
function isRefList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length <= 100 &&
    value.every((r) => typeof r === 'string' && r.length > 0 && r.length <= 200)
  );
}
