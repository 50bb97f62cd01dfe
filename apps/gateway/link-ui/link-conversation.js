// The conversation behind a link: its transcript, kept current by polling the token's read-only
// transcript route; with a resolving link, a box to send a turn and a button to close it (which
// resumes the run). An inspect-only link shows the transcript alone.

import { h, jsonBlock, mount, uuid } from '/admin/assets/dom.js';
import { resolve, transcript } from './link-api.js';
import { inlineError, readOnlyNote, when } from './link-views.js';

const POLL_MS = 1500;

/**
 * Renders the conversation. `onRefusal(error)` is called when the link stops working (the
 * conversation closed elsewhere, the run ended, the link expired); `onDone(text)` when this page
 * closed it. Returns `{ el, stop }`.
 */
export function conversationView(token, interrupt, { canAnswer, onRefusal, onDone }) {
  const d = interrupt.data && typeof interrupt.data === 'object' ? interrupt.data : {};
  const turns = new Map(); // turnIndex -> turn
  let after = -1;
  let timer;
  let stopped = false;
  const list = h(
    'ol',
    { class: 'transcript', 'data-testid': 'transcript', 'aria-live': 'polite' },
    h('li', { class: 'muted' }, 'Loading the conversation…'),
  );
  const status = h('p', { class: 'muted', 'data-testid': 'conversation-status' });
  const out = h('div', { class: 'result' });
  const input = h('textarea', { id: 'turn-input', rows: 2, placeholder: 'Write a message' });
  const send = h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'send-turn' }, 'Send');
  const close = h(
    'button',
    { type: 'button', class: 'btn', 'data-testid': 'close-conversation', onclick: () => void closeIt() },
    'End the conversation',
  );
  const composer = h(
    'form',
    { class: 'composer', onsubmit: (e) => (e.preventDefault(), void sendTurn()) },
    h('label', { for: 'turn-input', class: 'sr-only' }, 'Your message'),
    input,
    h('div', { class: 'actions' }, send, close),
  );

  function paint() {
    const items = [...turns.values()]
      .sort((a, b) => a.turnIndex - b.turnIndex)
      .map((t) =>
        h(
          'li',
          {
            class: `turn turn-${t.role === 'user' ? 'user' : 'other'}`,
            'data-role': t.role,
            'data-turn-index': t.turnIndex,
          },
          h(
            'div',
            { class: 'turn-head' },
            h('strong', {}, t.role === 'user' ? 'You' : t.speakerId || t.from || t.role),
            t.ts ? [' · ', when(new Date(t.ts).toISOString())] : '',
          ),
          typeof t.content === 'string' ? h('div', { class: 'turn-body' }, t.content) : jsonBlock(t.content),
        ),
      );
    mount(list, items.length ? items : h('li', { class: 'muted' }, 'No messages yet.'));
  }

  async function refresh() {
    if (stopped) return;
    try {
      for (;;) {
        const page = await transcript(token, after);
        for (const t of page.turns || []) {
          turns.set(t.turnIndex, t);
          after = Math.max(after, t.turnIndex);
        }
        status.textContent =
          page.status === 'open'
            ? `${page.turnCount} message${page.turnCount === 1 ? '' : 's'} · live`
            : 'This conversation is closed.';
        if (page.nextCursor === undefined || page.nextCursor === null) break;
      }
      paint();
    } catch (e) {
      if (e.status >= 400 && e.status < 500 && e.code !== 'validation_error') {
        stop();
        paint();
        onRefusal(e);
      }
      // A network error or a 5xx: the next poll tries again.
    }
  }

  async function sendTurn() {
    const content = input.value.trim();
    if (!content) return;
    send.disabled = true;
    mount(out);
    try {
      await resolve(token, {
        operation: 'exchange',
        turn: { messageId: uuid(), from: 'user', role: 'user', content },
      });
      input.value = '';
      await refresh();
    } catch (e) {
      if (e.status === 409 || e.status === 410) return onRefusal(e);
      mount(out, inlineError(e));
    } finally {
      send.disabled = false;
    }
  }

  async function closeIt() {
    close.disabled = true;
    send.disabled = true;
    try {
      await resolve(token, { operation: 'close' });
      stop();
      composer.remove();
      onDone('You ended the conversation.');
    } catch (e) {
      close.disabled = false;
      send.disabled = false;
      if (e.status === 409 || e.status === 410) return onRefusal(e);
      mount(out, inlineError(e));
    }
  }

  function stop() {
    stopped = true;
    clearInterval(timer);
  }

  void refresh();
  timer = setInterval(() => void refresh(), POLL_MS);
  const el = h(
    'div',
    { 'data-testid': 'conversation' },
    // The heading already is the prompt unless the conversation has a title of its own.
    str(d.title) && str(d.prompt) ? h('p', { class: 'lead' }, d.prompt) : null,
    list,
    status,
    canAnswer ? composer : readOnlyNote(),
    out,
  );
  return { el, stop };
}

function str(v) {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}
