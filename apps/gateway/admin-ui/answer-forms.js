// The forms a person answers an interrupt with, one per kind: the approval's actions, the
// clarification's questions, a JSON answer for any other kind. One module for both pages that
// answer: the admin page (`/admin`, with an API key) and the page behind a signed link
// (`/v1/interrupts/<token>`, which imports it from `/admin/assets/`). A form only builds the
// resume value and catches mistakes before anything is sent; the page shows the request around it
// and brings its own `hooks`:
//   submit(value, { buttons, out, done }) sends the value the page's way, shows the outcome in
//     `out`, and resolves with the host's answer (undefined when refused); `done` is what was sent,
//     in words ("You accepted.").
//   showError(out, message) shows a mistake caught in the page (nothing was sent).
// Built as DOM nodes and text, never parsed as markup: a payload is data.

import { h, mount } from './dom.js';

// ---------------------------------------------------------------------------------------------
// Approval

/** The approval actions (`interrupt.md` §approval), in the order the forms show them. */
export const APPROVAL_ACTIONS = [
  { id: 'accept', label: 'Accept', style: 'btn-primary' },
  { id: 'reject', label: 'Reject', style: 'btn-danger' },
  { id: 'edit', label: 'Edit & accept', style: '' },
  { id: 'refine', label: 'Request changes', style: '' },
  { id: 'ask', label: 'Ask a question', style: '' },
];

/**
 * Every approval action, each with `offered`: whether the gate allows it (`data.actions`, where
 * `edit-accept` names edit and `request-changes` refine; none of them listed = accept and reject).
 */
export function approvalActions(data) {
  const listed = new Set(
    (data && Array.isArray(data.actions) ? data.actions : []).map((a) =>
      a === 'edit-accept' ? 'edit' : a === 'request-changes' ? 'refine' : a,
    ),
  );
  const any = APPROVAL_ACTIONS.some((a) => listed.has(a.id));
  return APPROVAL_ACTIONS.map((a) => ({
    ...a,
    offered: any ? listed.has(a.id) : a.id === 'accept' || a.id === 'reject',
  }));
}

/**
 * The approval's controls for `actions` (from {@link approvalActions}; one not offered shows
 * disabled): a note (optional for accept, reject and edit, required to request changes), an editor
 * on the artifact for edit & accept (`edit-accept` with `editedArtifactData`), a question for ask
 * (the gate stays open). Request changes sends `refine` with `refineFeedback {scope: whole, text}`.
 * Edit and ask open their field on the first press and send on the second. Returns the nodes.
 */
export function approvalForm(data, actions, hooks) {
  const d = data && typeof data === 'object' ? data : {};
  const out = h('div', { class: 'result' });
  const feedback = h('textarea', {
    id: 'feedback',
    rows: 3,
    placeholder: 'A note for the requester (required to request changes)',
  });
  const edited = h(
    'textarea',
    { id: 'edited-artifact', rows: 10, class: 'mono', spellcheck: 'false' },
    JSON.stringify(d.artifactData ?? null, null, 2),
  );
  const editBox = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'edited-artifact' }, 'Your edited version (JSON)'),
    edited,
  );
  const question = h('input', {
    id: 'ask-question',
    type: 'text',
    autocomplete: 'off',
    placeholder: 'Your question',
  });
  const askBox = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'ask-question' }, 'Question'),
    question,
  );
  const buttons = actions.map((a) =>
    h(
      'button',
      {
        type: 'button',
        class: `btn ${a.style}`,
        'data-action': a.id,
        'data-offered': String(a.offered),
        disabled: !a.offered,
        title: a.offered ? undefined : 'Not offered by this gate',
        onclick: () => void act(a.id),
      },
      a.label,
    ),
  );
  const hint = (text) => mount(out, h('p', { class: 'muted' }, text));

  async function act(action) {
    const note = feedback.value.trim();
    const withNote = note ? { feedback: note } : {};
    let value;
    let done;
    if (action === 'accept' || action === 'reject') {
      value = { action, ...withNote };
      done = action === 'accept' ? 'You accepted.' : 'You rejected.';
    } else if (action === 'refine') {
      if (!note)
        return hooks.showError(
          out,
          'Say what should change in the note above, then press Request changes again.',
        );
      value = { action: 'refine', refineFeedback: { scope: 'whole', text: note } };
      done = 'You asked for changes.';
    } else if (action === 'edit') {
      if (editBox.hidden) {
        editBox.hidden = false;
        edited.focus();
        return hint('Edit the artifact above, then press Edit & accept again.');
      }
      try {
        value = { action: 'edit-accept', editedArtifactData: JSON.parse(edited.value), ...withNote };
      } catch (e) {
        return hooks.showError(out, `Your edited version is not valid JSON: ${e.message}`);
      }
      done = 'You accepted your edited version.';
    } else if (action === 'ask') {
      if (askBox.hidden || !question.value.trim()) {
        askBox.hidden = false;
        question.focus();
        return hint('Type your question, then press Ask a question again.');
      }
      value = { action: 'ask', question: question.value.trim() };
      done = 'Your question was sent.';
    }
    const result = await hooks.submit(value, { buttons, out, done });
    if (result && action === 'ask') question.value = '';
  }

  return [
    // The note goes with a decision; a question alone has its own field.
    actions.some((a) => a.offered && a.id !== 'ask')
      ? h('div', { class: 'field' }, h('label', { for: 'feedback' }, 'Note'), feedback)
      : null,
    editBox,
    askBox,
    h('div', { class: 'actions', 'data-testid': 'approval-actions' }, buttons),
    out,
  ];
}

// ---------------------------------------------------------------------------------------------
// Clarification

/** The questions of a clarification's `data` that can be answered (each has an `id`). */
export function questionsOf(data) {
  return data && Array.isArray(data.questions)
    ? data.questions.filter((q) => q && typeof q.id === 'string')
    : [];
}

/**
 * The input for one clarification question, from its schema (`enum` or `choices`, boolean,
 * number or integer, object or array as JSON, else text), and how to read its answer.
 */
export function answerInput(q, id) {
  const s = q.schema && typeof q.schema === 'object' ? q.schema : {};
  const choices = Array.isArray(s.enum) ? s.enum : Array.isArray(q.choices) ? q.choices : undefined;
  if (choices) {
    const el = h(
      'select',
      { id, name: q.id },
      choices.map((c, i) => h('option', { value: String(i) }, typeof c === 'string' ? c : JSON.stringify(c))),
    );
    return { id, el, read: () => choices[Number(el.value)] };
  }
  if (s.type === 'boolean') {
    const el = h('input', { id, name: q.id, type: 'checkbox' });
    return { id, el, read: () => el.checked };
  }
  if (s.type === 'number' || s.type === 'integer') {
    const el = h('input', {
      id,
      name: q.id,
      type: 'number',
      inputmode: s.type === 'integer' ? 'numeric' : 'decimal',
      step: s.type === 'integer' ? '1' : 'any',
      required: true,
    });
    return {
      id,
      el,
      read: () => {
        if (el.value === '') throw new Error('needs a number');
        return Number(el.value);
      },
    };
  }
  if (s.type === 'object' || s.type === 'array') {
    const el = h('textarea', { id, name: q.id, rows: 4, class: 'mono', placeholder: 'JSON' });
    return { id, el, read: () => JSON.parse(el.value) };
  }
  const el = h('input', { id, name: q.id, type: 'text', required: true, autocomplete: 'off' });
  return { id, el, read: () => el.value };
}

/**
 * A form of one input per question (see {@link answerInput}), sent as `{answers: [{id, answer}]}`.
 * `showIds` adds each question's id to its label (for an operator). Returns the nodes.
 */
export function clarificationForm(questions, hooks, { showIds = false } = {}) {
  if (!questions.length) return h('p', { class: 'muted' }, 'This clarification has no questions.');
  const out = h('div', { class: 'result' });
  const inputs = questions.map((q, i) => ({ q, ...answerInput(q, `answer-${i}`) }));
  const send = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Send answers');
  const onsubmit = (e) => {
    e.preventDefault();
    const answers = [];
    for (const { q, read } of inputs) {
      try {
        answers.push({ id: q.id, answer: read() });
      } catch (err) {
        return hooks.showError(out, `${q.question ?? q.id}: ${err.message}`);
      }
    }
    void hooks.submit({ answers }, { buttons: [send], out, done: 'Your answers were sent.' });
  };
  return [
    h(
      'form',
      { class: 'form', 'data-testid': 'clarification-form', onsubmit },
      inputs.map(({ q, el, id }) =>
        h(
          'div',
          { class: 'field' },
          h(
            'label',
            { for: id },
            q.question ?? q.id,
            showIds && q.question ? [' ', h('code', { class: 'muted' }, q.id)] : null,
          ),
          el,
        ),
      ),
      h('div', { class: 'actions' }, send),
    ),
    out,
  ];
}

// ---------------------------------------------------------------------------------------------
// Any other kind

/** What the answer box starts with, per kind: the shape the kind's resume value takes. */
const TEMPLATES = {
  'external-event': () => ({ eventPayload: {} }),
  'low-confidence': (d) => (d && d.decision !== undefined ? d.decision : {}),
};

/** A JSON box for the resume value of any other kind (external-event, custom, low-confidence…). Returns the nodes. */
export function genericForm(interrupt, hooks) {
  const template = (TEMPLATES[interrupt.kind] ?? (() => ({})))(interrupt.data);
  const area = h(
    'textarea',
    { id: 'resume-value', rows: 8, class: 'mono', spellcheck: 'false' },
    JSON.stringify(template, null, 2),
  );
  const out = h('div', { class: 'result' });
  const send = h('button', { type: 'button', class: 'btn btn-primary' }, 'Send answer');
  send.addEventListener('click', () => {
    let value;
    try {
      value = JSON.parse(area.value);
    } catch (e) {
      return hooks.showError(out, `The answer is not valid JSON: ${e.message}`);
    }
    void hooks.submit(value, { buttons: [send], out, done: 'Your answer was sent.' });
  });
  return [
    h('div', { class: 'field' }, h('label', { for: 'resume-value' }, 'Your answer (JSON)'), area),
    h('div', { class: 'actions' }, send),
    out,
  ];
}
