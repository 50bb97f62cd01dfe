// The page a browser gets at a signed link (`/v1/interrupts/<token>`): the one interrupt that
// token names, with no API key. It reads the token from its own URL and talks only to the token
// routes of this origin. A resolving link answers; an inspect-only link shows the same, read-only.

import { h, mount } from '/admin/assets/dom.js';
import { ENDED_STATUSES, inspect, LinkFailure, outcome, resolve, tokenOfLocation } from './link-api.js';
import { conversationView } from './link-conversation.js';
import {
  approvalView,
  clarificationView,
  expiryLine,
  genericView,
  inlineError,
  kindPhrase,
  runStatusSentence,
  titleOf,
  when,
} from './link-views.js';

const main = document.getElementById('main');
const token = tokenOfLocation();
const RUN_WATCH_MS = 1500;
const RUN_WATCH_LIMIT_MS = 120_000;
let cleanup = () => {};

/** Sets what the page is showing: `loading`, `pending`, `done`, `used`, `run-ended`, `expired`, `invalid`, `error`. */
function show(state, ...children) {
  cleanup();
  cleanup = () => {};
  main.dataset.state = state;
  mount(main, ...children);
}

function card(title, ...children) {
  return h('section', { class: 'card' }, title ? h('h1', {}, title) : null, ...children);
}

function retryButton() {
  return h('button', { type: 'button', class: 'btn', onclick: () => void load() }, 'Try again');
}

const ACTION_WORDS = {
  accept: 'accepted',
  'edit-accept': 'accepted with edits',
  reject: 'rejected',
  refine: 'sent back with changes requested',
  timeout: 'not answered in time',
};

/** The link can no longer be used: say why, plainly. `kept` stays below (a transcript). */
async function showRefusal(error, kept) {
  const keep = kept ? [h('hr'), kept] : [];
  if (error.code === 'interrupt_expired') {
    const at = error.details && error.details.expiresAt;
    return show(
      'expired',
      card(
        'This link has expired',
        h(
          'p',
          { class: 'lead' },
          'It stopped working',
          at ? [' at ', when(at)] : '',
          '. Ask whoever sent it for a new one.',
        ),
      ),
      ...keep,
    );
  }
  if (
    error.code === 'interrupt_not_found' ||
    (error.code === 'validation_error' && error.status === 400 && !kept)
  ) {
    return show(
      'invalid',
      card(
        'This link is not valid',
        h(
          'p',
          { class: 'lead' },
          'It may be cut short or was never issued. Open the whole link from the message you received.',
        ),
      ),
    );
  }
  if (error.code === 'interrupt_already_resolved') {
    let where;
    try {
      where = await outcome(token);
    } catch {
      where = undefined;
    }
    if (where && where.state === 'run-ended') {
      return show(
        'run-ended',
        card(
          'The run has ended',
          h(
            'p',
            { class: 'lead' },
            'The run behind this link ended',
            where.runStatus ? [' (', h('strong', { 'data-testid': 'run-status' }, where.runStatus), ')'] : '',
            ' before anyone answered. Nothing waits for you here.',
          ),
        ),
        ...keep,
      );
    }
    const answer = (where && where.answer) || {};
    const how =
      ACTION_WORDS[answer.action] ??
      (answer.reason === 'timeout' ? 'closed when its time ran out' : 'answered');
    return show(
      'used',
      card(
        'This link was already used',
        h(
          'p',
          { class: 'lead' },
          'The request was ',
          h('strong', {}, how),
          answer.resolvedAt ? [' on ', when(answer.resolvedAt)] : '',
          '. A link works once; nothing more is needed from you.',
        ),
        where && where.runStatus
          ? h(
              'p',
              { class: 'muted' },
              'The run is now ',
              h('strong', { 'data-testid': 'run-status' }, where.runStatus),
              '.',
            )
          : null,
      ),
      ...keep,
    );
  }
  return show('error', card('Something went wrong', inlineError(error), retryButton()), ...keep);
}

/** After this page's answer: say so, then follow the run until it ended (bounded). */
function showDone(text, kept) {
  const status = h('p', { class: 'muted', 'data-testid': 'run-status' }, runStatusSentence(undefined));
  show(
    'done',
    card('Thank you', h('p', { class: 'lead', 'data-testid': 'done' }, text), status),
    ...(kept ? [h('hr'), kept] : []),
  );
  const started = Date.now();
  let timer;
  const watch = async () => {
    try {
      const where = await outcome(token);
      if (where.runStatus) {
        status.textContent = runStatusSentence(where.runStatus);
        status.dataset.status = where.runStatus;
      }
      if (ENDED_STATUSES.has(where.runStatus) || Date.now() - started > RUN_WATCH_LIMIT_MS)
        return clearInterval(timer);
    } catch (e) {
      // Expired or gone: the status shown stays the last one known.
      if (e instanceof LinkFailure && e.status >= 400 && e.status < 500) clearInterval(timer);
    }
  };
  timer = setInterval(() => void watch(), RUN_WATCH_MS);
  void watch();
  cleanup = () => clearInterval(timer);
}

/**
 * Sends an answer through the link. `done` is what the page says once it resolved; a `pending`
 * verdict (a question asked, a vote short of quorum) leaves the form as it is.
 */
async function submit(value, { buttons, out, done }) {
  for (const b of buttons) b.disabled = true;
  mount(out, h('p', { class: 'muted', role: 'status' }, 'Sending…'));
  try {
    const result = await resolve(token, value);
    if (result && result.status === 'resolved') {
      showDone(done);
      return result;
    }
    mount(
      out,
      h(
        'p',
        { class: 'notice notice-ok', 'data-testid': 'recorded', role: 'status' },
        'Recorded. The request stays open until it is decided.',
      ),
    );
    return result;
  } catch (error) {
    if (['interrupt_already_resolved', 'interrupt_expired', 'interrupt_not_found'].includes(error.code)) {
      void showRefusal(error);
      return undefined;
    }
    mount(out, inlineError(error));
    return undefined;
  } finally {
    for (const b of buttons) b.disabled = false;
  }
}

async function load() {
  show('loading', card(null, h('p', { class: 'muted', role: 'status' }, 'Loading the request…')));
  if (!token) return showRefusal(new LinkFailure(404, 'interrupt_not_found', 'No token in this address.'));
  let interrupt;
  try {
    interrupt = await inspect(token);
  } catch (error) {
    return showRefusal(error);
  }
  const canAnswer = interrupt.intent === 'resolve';
  const context = { canAnswer, submit };
  let body;
  let stopBody = () => {};
  if (String(interrupt.kind).startsWith('conversation')) {
    const conv = conversationView(token, interrupt, {
      canAnswer,
      onRefusal: (error) => void showRefusal(error, conv.el),
      onDone: (text) => showDone(text, conv.el),
    });
    body = conv.el;
    stopBody = conv.stop;
  } else if (interrupt.kind === 'approval') body = approvalView(interrupt, context);
  else if (interrupt.kind === 'clarification') body = clarificationView(interrupt, context);
  else body = genericView(interrupt, context);

  const expiry = expiryLine(
    interrupt.expiresAt,
    () =>
      void showRefusal(
        new LinkFailure(410, 'interrupt_expired', 'The link expired.', { expiresAt: interrupt.expiresAt }),
      ),
  );
  main.dataset.intent = interrupt.intent;
  main.dataset.kind = interrupt.kind;
  show(
    'pending',
    card(
      titleOf(interrupt),
      h(
        'p',
        { class: 'kind', 'data-testid': 'kind', title: interrupt.kind },
        `${kindPhrase(interrupt.kind)} ${canAnswer ? 'waits for your answer' : 'is waiting'}`,
      ),
      expiry.line,
      body,
    ),
  );
  cleanup = () => {
    expiry.stop();
    stopBody();
  };
}

void load();
