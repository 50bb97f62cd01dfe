import { text } from '../util/text';
import type { Output } from '../util/output';
import type { LineInput } from './line-input';

/** Answers given on the command line, checked when parsed and used instead of asking. */
export interface PresetAnswers {
  /** The approval resume value of `--action` (with `--feedback`). */
  readonly approval?: Record<string, unknown>;
  /** `--answer id=value`: clarification answers by question id. */
  readonly answers?: Record<string, unknown>;
  /** `--value JSON`: the resume value of any interrupt. */
  readonly value?: unknown;
}

/** The five approval actions, as a person picks them (`edit` resolves as `edit-accept`). */
const ACTION_KEYS: Readonly<Record<string, string>> = {
  a: 'accept',
  r: 'reject',
  f: 'refine',
  e: 'edit',
  s: 'ask',
};

/** One step of answering an approval: a resume value to send, or nothing (end of input, Ctrl+C). */
export type Answer = { readonly value: unknown } | null;

/**
 * Shows the artifact of an approval and asks for one of the actions the gate offers (accept,
 * reject, refine, edit, ask), then what that action needs (feedback, the edited artifact as JSON, the
 * question). `--action` answers without asking.
 */
export async function answerApproval(
  data: Record<string, unknown>,
  out: Output,
  input: LineInput,
  signal: AbortSignal,
  preset: PresetAnswers,
  again = false,
): Promise<Answer> {
  const offered = (Array.isArray(data.actions) ? data.actions : ['accept', 'reject']).map(String);
  const given = preset.value ?? preset.approval;
  if (given !== undefined) {
    const how = preset.value !== undefined ? '--value' : `--action ${text(preset.approval?.action)}`;
    if (!again)
      out.line(
        `${out.paint('bold', `Approval: ${text(data.title)}`)} ${out.paint('dim', `(answered by ${how})`)}`,
      );
    return { value: given };
  }
  if (!again) {
    out.line(out.paint('bold', `Approval: ${text(data.title)}`));
    if (data.description !== undefined) out.line(`  ${text(data.description)}`);
    out.line(`  artifact (${text(data.artifactType ?? 'unknown')}):`);
    for (const l of JSON.stringify(data.artifactData ?? null, null, 2).split('\n')) out.line(`    ${l}`);
    const menu = offered.map((a) => {
      const key = Object.entries(ACTION_KEYS).find(([, v]) => v === a)?.[0];
      return key ? `${a} (${key})` : a;
    });
    out.line(`  actions: ${menu.join(', ')}`);
  }
  for (;;) {
    const raw = await input.ask('action> ', signal);
    if (raw === null) return null;
    const action = ACTION_KEYS[raw.trim()] ?? raw.trim();
    if (!offered.includes(action)) {
      out.line(`  choose one of: ${offered.join(', ')}`);
      continue;
    }
    switch (action) {
      case 'accept':
        return { value: { action } };
      case 'reject': {
        const reason = await input.ask('reason (optional)> ', signal);
        if (reason === null) return null;
        return { value: { action, ...(reason.trim() ? { feedback: reason.trim() } : {}) } };
      }
      case 'refine': {
        const text = await input.ask('what should change> ', signal);
        if (text === null) return null;
        return { value: { action, refineFeedback: { scope: 'whole', text } } };
      }
      case 'edit': {
        const edited = await askJson('edited artifact (JSON)> ', out, input, signal);
        if (edited === null) return null;
        return { value: { action: 'edit-accept', editedArtifactData: edited.value } };
      }
      case 'ask': {
        const question = await input.ask('question> ', signal);
        if (question === null) return null;
        return { value: { action, question } };
      }
      default:
        return { value: { action } };
    }
  }
}

/** Asks each question of a clarification in turn (`--answer id=value` answers without asking). */
export async function answerClarification(
  data: Record<string, unknown>,
  out: Output,
  input: LineInput,
  signal: AbortSignal,
  preset: PresetAnswers,
): Promise<Answer> {
  if (preset.value !== undefined) return { value: preset.value };
  const questions = (Array.isArray(data.questions) ? data.questions : []) as {
    id?: unknown;
    question?: unknown;
  }[];
  const answers: Record<string, unknown> = {};
  out.line(out.paint('bold', 'Clarification needed:'));
  for (const q of questions) {
    const id = text(q.id);
    out.line(`  ${text(q.question ?? id)}`);
    if (preset.answers && Object.hasOwn(preset.answers, id)) {
      answers[id] = preset.answers[id];
      out.line(`${id}> ${text(preset.answers[id])} ${out.paint('dim', '(from --answer)')}`);
      continue;
    }
    const line = await input.ask(`${id}> `, signal);
    if (line === null) return null;
    answers[id] = line;
  }
  return { value: { answers } };
}

/** Any other kind: shows the data and asks for the resume value as JSON (`--value` answers without asking). */
export async function answerWithJson(
  kind: string,
  data: unknown,
  out: Output,
  input: LineInput,
  signal: AbortSignal,
  preset: PresetAnswers,
): Promise<Answer> {
  if (preset.value !== undefined) return { value: preset.value };
  out.line(out.paint('bold', `Input needed (${kind}):`));
  for (const l of JSON.stringify(data ?? null, null, 2).split('\n')) out.line(`  ${l}`);
  return askJson('resume value (JSON)> ', out, input, signal);
}

async function askJson(prompt: string, out: Output, input: LineInput, signal: AbortSignal): Promise<Answer> {
  for (;;) {
    const line = await input.ask(prompt, signal);
    if (line === null) return null;
    try {
      return { value: JSON.parse(line) as unknown };
    } catch {
      out.line('  not JSON; try again (one line)');
    }
  }
}
