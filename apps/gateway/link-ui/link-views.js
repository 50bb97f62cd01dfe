// What the page shows for one interrupt: the approval, the clarification, any other kind as JSON,
// with the answer forms the admin page uses too (`/admin/assets/answer-forms.js`), or read-only for
// an inspect-only link; and the plain states of a link that can no longer be used. Built as DOM
// nodes and text, never parsed as markup: a payload is data.

import {
  approvalActions,
  approvalForm,
  clarificationForm,
  genericForm,
  questionsOf,
} from '/admin/assets/answer-forms.js';
import { formatAge, h, jsonBlock, mount } from '/admin/assets/dom.js';
import { LinkFailure } from './link-api.js';

const str = (v) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** A local date and time, with the ISO instant as its machine-readable value. */
export function when(iso) {
  const d = new Date(iso);
  const text = Number.isNaN(d.getTime())
    ? String(iso)
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { datetime: iso, title: iso }, text);
}

/** The request's heading: what is asked, in words. */
export function titleOf(interrupt) {
  const d = interrupt.data && typeof interrupt.data === 'object' ? interrupt.data : {};
  if (interrupt.kind === 'clarification') return str(d.title) ?? 'A question for you';
  if (String(interrupt.kind).startsWith('conversation'))
    return str(d.title) ?? str(d.prompt) ?? 'A conversation';
  if (interrupt.kind === 'approval') return str(d.title) ?? 'Approval requested';
  return str(d.title) ?? str(d.question) ?? str(d.prompt) ?? `A ${interrupt.kind} request`;
}

/** What each kind of request is called in a sentence ("A conversation waits for your answer"). */
const KIND_PHRASES = {
  approval: 'An approval',
  clarification: 'A question',
  'external-event': 'An outside event',
  custom: 'A request',
  'low-confidence': 'A result to check',
};

/** The kind of `interrupt` in words, for a person: never the wire name (`conversation.exchange`). */
export function kindPhrase(kind) {
  if (String(kind).startsWith('conversation')) return 'A conversation';
  return KIND_PHRASES[kind] ?? 'A request';
}

const RUN_STATUS_WORDS = {
  completed: 'the workflow has completed.',
  failed: 'the workflow has stopped with an error.',
  cancelled: 'the workflow was cancelled.',
  paused: 'the workflow is paused.',
  'waiting-approval': 'the workflow now waits for another answer.',
  'waiting-input': 'the workflow now waits for another answer.',
};

/** After an answer: where the workflow stands, in a sentence ("Thanks — the workflow has completed."). */
export function runStatusSentence(status) {
  return `Thanks — ${RUN_STATUS_WORDS[status] ?? 'the workflow goes on.'}`;
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value for reading: text, a list, a table of like records, or a definition list; JSON past a few levels. */
function readable(value, depth = 0) {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  if (typeof value !== 'object') return String(value);
  if (depth >= 3) return h('code', { class: 'mono' }, JSON.stringify(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', { class: 'muted' }, '(none)');
    if (value.every(isPlainObject)) {
      const columns = [...new Set(value.flatMap((row) => Object.keys(row)))];
      return h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'data-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              columns.map((c) => h('th', { scope: 'col' }, c)),
            ),
          ),
          h(
            'tbody',
            {},
            value.map((row) =>
              h(
                'tr',
                {},
                columns.map((c) => h('td', {}, readable(row[c], depth + 1))),
              ),
            ),
          ),
        ),
      );
    }
    return h(
      'ul',
      { class: 'data-list' },
      value.map((item) => h('li', {}, readable(item, depth + 1))),
    );
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return h('span', { class: 'muted' }, '(empty)');
  return h(
    'dl',
    { class: 'data-fields' },
    entries.map(([key, v]) => [h('dt', {}, key), h('dd', {}, readable(v, depth + 1))]),
  );
}

/**
 * What a person is asked to look at (an approval's artifact): readable (fields as a definition
 * list, a list of records as a table), with the exact JSON one click away.
 */
export function artifactView(value, attrs = {}) {
  return h(
    'div',
    { class: 'artifact', ...attrs },
    h('div', { class: 'artifact-readable', 'data-testid': 'artifact-readable' }, readable(value)),
    h(
      'details',
      { class: 'raw-json' },
      h('summary', {}, 'Show as JSON'),
      jsonBlock(value, { 'data-testid': 'artifact-json', tabindex: '0' }),
    ),
  );
}

/** "This link works until … (28 min left)", kept current; calls `onExpired` once the time passed. */
export function expiryLine(expiresAt, onExpired) {
  const left = h('span', { 'data-testid': 'time-left' });
  const line = h(
    'p',
    { class: 'expiry', 'data-testid': 'expiry' },
    'This link works until ',
    when(expiresAt),
    ' (',
    left,
    ').',
  );
  const end = Date.parse(expiresAt);
  let timer;
  const tick = () => {
    const ms = end - Date.now();
    if (!(ms > 0)) {
      clearInterval(timer);
      onExpired();
      return;
    }
    left.textContent = `${formatAge(ms)} left`;
    line.classList.toggle('expiry-soon', ms < 5 * 60_000);
  };
  if (Number.isNaN(end)) line.replaceChildren('This link has no stated expiry.');
  else {
    tick();
    timer = setInterval(tick, 5_000);
  }
  return { line, stop: () => clearInterval(timer) };
}

/** The note an inspect-only link shows instead of any control. */
export function readOnlyNote() {
  return h(
    'p',
    { class: 'notice notice-info', 'data-testid': 'read-only-note' },
    h('strong', {}, 'Read-only link.'),
    ' It shows this request but cannot answer it. Whoever should decide has their own link.',
  );
}

/** An inline error under a form: the envelope's message and its code. */
export function inlineError(error) {
  return h(
    'div',
    {
      class: 'notice notice-error',
      role: 'alert',
      'data-testid': 'inline-error',
      'data-error-code': error.code ?? 'error',
    },
    h('strong', {}, error.message ?? String(error)),
    error.status ? h('span', { class: 'muted' }, ` (${error.status} ${error.code})`) : null,
  );
}

function meta(label, value) {
  return value === undefined || value === null || value === ''
    ? null
    : h('div', { class: 'meta-item' }, h('dt', {}, label), h('dd', {}, value));
}

/** Why a link to a gate that needs several approvals offers no vote. */
export function quorumNote(required) {
  return h(
    'p',
    { class: 'notice notice-info', 'data-testid': 'quorum-note' },
    h('strong', {}, `${required} people must approve this.`),
    ' Each approver votes as themselves, with their own access (the wop command or the API), so a shared link cannot vote here.',
  );
}

/** The answer forms' hooks (answer-forms.js): `submit` is the page's; a mistake shows inline. */
function hooksOf(submit) {
  return {
    submit,
    showError: (out, message) => mount(out, inlineError(new LinkFailure(0, 'validation_error', message))),
  };
}

/**
 * The approval: title, description, the artifact, and — for a resolving link — only the actions
 * the gate allows (answer-forms.js). A gate that needs several people counts each person once: a
 * shared link names nobody, so it can ask a question but not vote (ADR 0005).
 */
export function approvalView(interrupt, { canAnswer, submit }) {
  const d = interrupt.data && typeof interrupt.data === 'object' ? interrupt.data : {};
  const parts = [
    str(d.description) ? h('p', { class: 'lead', 'data-testid': 'description' }, d.description) : null,
    h(
      'dl',
      { class: 'meta' },
      meta('Artifact', d.artifactType),
      meta('Artifact id', d.artifactId),
      d.requiredApprovals > 1 ? meta('Approvals needed', `${d.requiredApprovals}`) : null,
    ),
    d.artifactData !== undefined
      ? [
          h('h2', {}, 'What you are asked to approve'),
          artifactView(d.artifactData, { 'data-testid': 'artifact' }),
        ]
      : null,
  ];
  if (!canAnswer) return h('div', {}, parts, readOnlyNote());
  const quorum = d.requiredApprovals > 1;
  const actions = approvalActions(d).filter((a) => a.offered && (!quorum || a.id === 'ask'));
  if (quorum) parts.push(quorumNote(d.requiredApprovals));
  if (actions.length === 0) return h('div', {}, parts);
  return h('div', {}, parts, approvalForm(d, actions, hooksOf(submit)));
}

/** The clarification: a form built from its questions (or, read-only, the questions alone). */
export function clarificationView(interrupt, { canAnswer, submit }) {
  const questions = questionsOf(interrupt.data);
  if (!canAnswer) {
    return h(
      'div',
      {},
      h(
        'ol',
        { class: 'questions', 'data-testid': 'questions' },
        questions.map((q) => h('li', {}, q.question ?? q.id)),
      ),
      readOnlyNote(),
    );
  }
  return h('div', {}, clarificationForm(questions, hooksOf(submit)));
}

/** Any other kind: its payload as JSON and, for a resolving link, a JSON box for the answer. */
export function genericView(interrupt, { canAnswer, submit }) {
  const parts = [
    h('h2', {}, 'Details'),
    jsonBlock(interrupt.data, { 'data-testid': 'payload', tabindex: '0' }),
  ];
  if (interrupt.resumeSchema) parts.push(h('h2', {}, 'Expected answer'), jsonBlock(interrupt.resumeSchema));
  if (!canAnswer) return h('div', {}, parts, readOnlyNote());
  return h('div', {}, parts, genericForm(interrupt, hooksOf(submit)));
}
