import { InvalidResumeValue, type Violation } from './interrupt.errors';
import { isJsonObject, pointer } from './json-value.util';
import { schemaViolations } from './json-schema.validator';

interface Question {
  readonly id: string;
  readonly schema?: unknown;
}

/**
 * Checks a clarification answer: `{answers: {q1: …}}` (map form, what the conformance fixture
 * sends) or `{answers: [{id, answer}]}` (the spec's array form). Every question is answered, no
 * unknown or repeated ids, and each answer matches its question's `schema` when it has one.
 * The value is resumed as submitted (either form).
 * @throws {@link InvalidResumeValue}
 */
export function checkClarificationAnswers(data: unknown, value: unknown): void {
  if (!isJsonObject(value)) throw InvalidResumeValue.at('', 'must be an object with answers');
  const answers = answerMap(value.answers);
  if (answers.map.size === 0 && answers.problems.length)
    throw new InvalidResumeValue('resumeValue.answers is malformed', answers.problems);
  const questions = readQuestions(data);
  const problems: Violation[] = [...answers.problems];
  const known = new Set(questions.map((q) => q.id));
  for (const id of answers.map.keys()) {
    if (!known.has(id))
      problems.push({ path: `/answers${pointer(id)}`, message: 'is not a question of this interrupt' });
  }
  for (const q of questions) {
    const at = `/answers${pointer(q.id)}`;
    if (!answers.map.has(q.id)) problems.push({ path: at, message: 'is not answered' });
    else if (isJsonObject(q.schema)) problems.push(...schemaViolations(q.schema, answers.map.get(q.id), at));
  }
  if (problems.length)
    throw new InvalidResumeValue(
      `resumeValue does not answer the clarification: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
      problems,
    );
}

function answerMap(raw: unknown): { map: Map<string, unknown>; problems: Violation[] } {
  const map = new Map<string, unknown>();
  const problems: Violation[] = [];
  if (isJsonObject(raw)) {
    for (const [id, answer] of Object.entries(raw)) if (answer !== undefined) map.set(id, answer);
  } else if (Array.isArray(raw)) {
    raw.forEach((item: unknown, i) => {
      if (!isJsonObject(item) || typeof item.id !== 'string' || !Object.hasOwn(item, 'answer')) {
        problems.push({ path: `/answers/${i}`, message: 'must be {id, answer}' });
      } else if (map.has(item.id)) {
        problems.push({ path: `/answers/${i}/id`, message: `answers ${item.id} twice` });
      } else {
        map.set(item.id, item.answer);
      }
    });
  } else {
    problems.push({
      path: '/answers',
      message: 'must be an object keyed by question id or an array of {id, answer}',
    });
  }
  return { map, problems };
}

function readQuestions(data: unknown): Question[] {
  const raw = isJsonObject(data) && Array.isArray(data.questions) ? (data.questions as unknown[]) : [];
  return raw.filter((q): q is Question => isJsonObject(q) && typeof q.id === 'string');
}
