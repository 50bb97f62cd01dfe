// The conversation view (RFC 0005 turns): the transcript, live over SSE (`streamMode=messages`:
// `ai.message.chunk` while the agent speaks, `conversation.*` events when a turn is recorded), a box
// to send a user turn and a button to close the conversation (which resumes the run).

import { api, ApiFailure, paths, streamEvents } from './api.js';
import { badge, emptyState, errorState, h, jsonBlock, loadingState, mount, timeEl, uuid } from './dom.js';

const RECONNECT_MS = 1500;
const POLL_MS = 1500;

/** Whether an interrupt is one of the conversation kinds (or carries a conversation id). */
export function looksLikeConversation(interrupt) {
  return (
    Boolean(interrupt) &&
    (String(interrupt.kind).startsWith('conversation') ||
      typeof (interrupt.data || {}).conversationId === 'string')
  );
}

/**
 * Renders the conversation of `nodeId` into `card`. When the host has no conversation for the node
 * (or no conversation routes), calls `fallback` if given, renders nothing if `quietIfMissing`, else
 * shows the error. Returns the cleanup.
 */
export function conversationPanel(card, { runId, nodeId, interrupt, fallback, quietIfMissing }) {
  const controller = new AbortController();
  const { signal } = controller;
  const turns = new Map(); // messageId -> turn
  const streaming = new Map(); // messageId -> text while the agent speaks
  let conversation;
  let live = false;
  let closed = false;
  let lastEventId;
  let pollTimer;

  if (!quietIfMissing) mount(card, loadingState('Loading the conversation…'));

  const transcript = h('ol', { class: 'transcript', 'data-testid': 'transcript', 'aria-live': 'polite' });
  const statusEl = h('span', { 'data-testid': 'conversation-status' });
  const liveEl = h('span', { class: 'live', 'data-testid': 'live-indicator' });
  const countEl = h('span', { 'data-testid': 'turn-count' });
  const input = h('textarea', {
    id: 'turn-input',
    rows: 2,
    placeholder: 'Write a turn… (Enter sends, Shift+Enter for a new line)',
  });
  const send = h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'send-turn' }, 'Send');
  const close = h(
    'button',
    {
      type: 'button',
      class: 'btn btn-danger',
      'data-testid': 'close-conversation',
      onclick: () => void closeConversation(),
    },
    'Close conversation',
  );
  const out = h('div', { class: 'result' });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      composer.requestSubmit();
    }
  });
  const composer = h(
    'form',
    {
      class: 'composer',
      onsubmit: (e) => {
        e.preventDefault();
        void sendTurn();
      },
    },
    h('label', { for: 'turn-input', class: 'sr-only' }, 'Your turn'),
    input,
    h('div', { class: 'actions' }, send, close),
  );

  async function start() {
    let list;
    try {
      list = await api('GET', paths.conversations(runId), undefined, { signal });
    } catch (e) {
      if (e.name === 'AbortError') return;
      return missing(e);
    }
    const mine = (list.conversations || []).filter((c) => c.nodeId === nodeId);
    conversation = mine.find((c) => c.status === 'open') ?? mine[mine.length - 1];
    if (!conversation) return missing(undefined);
    closed = conversation.status !== 'open';
    render();
    await refreshTurns();
    if (!closed) void follow();
    pollTimer = setInterval(() => {
      if (!live && !closed) void refreshTurns();
    }, POLL_MS);
  }

  function missing(error) {
    if (fallback) return fallback();
    if (quietIfMissing) return mount(card);
    mount(
      card,
      error ? errorState(error, () => void start()) : emptyState('No conversation at this node yet.'),
    );
  }

  function render() {
    const d = (interrupt && interrupt.data) || {};
    mount(
      card,
      h(
        'div',
        { class: 'card-head' },
        h('h2', {}, 'Conversation'),
        h('div', { class: 'toolbar' }, liveEl, statusEl),
      ),
      h('p', { class: 'muted' }, 'Conversation ', h('code', {}, conversation.conversationId), countEl),
      d.prompt ? h('p', { class: 'lead' }, d.prompt) : null,
      transcript,
      closed ? null : composer,
      out,
    );
    paintStatus();
  }

  function paintStatus() {
    mount(statusEl, badge(closed ? 'closed' : 'open'));
    liveEl.textContent = closed ? '' : live ? '● live' : '○ reconnecting';
    liveEl.classList.toggle('on', live && !closed);
    send.disabled = closed;
    close.disabled = closed;
    input.disabled = closed;
  }

  async function refreshTurns() {
    try {
      let after;
      for (;;) {
        const page = await api(
          'GET',
          paths.conversation(runId, conversation.conversationId, after),
          undefined,
          { signal },
        );
        for (const t of page.turns || []) {
          turns.set(t.messageId, t);
          streaming.delete(t.messageId);
        }
        // A streamed reply whose turn is now recorded (under whatever message id) is done.
        const recorded = recordedIndex();
        for (const [id, s] of streaming)
          if (s.finished || (s.turnIndex !== undefined && s.turnIndex <= recorded)) streaming.delete(id);
        if (page.status && page.status !== 'open' && !closed) {
          closed = true;
          render();
        }
        if (page.nextCursor === undefined || page.nextCursor === null) break;
        after = page.nextCursor;
      }
      paintTranscript();
    } catch (e) {
      if (e.name === 'AbortError') return;
      mount(out, errorState(e));
    }
  }

  function paintTranscript() {
    const recorded = [...turns.values()].sort((a, b) => a.turnIndex - b.turnIndex);
    const items = recorded.map(turnItem);
    for (const [messageId, s] of streaming) {
      items.push(
        turnItem({
          messageId,
          role: 'agent',
          from: s.from || 'agent',
          content: s.text,
          turnIndex: s.turnIndex,
          streaming: true,
        }),
      );
    }
    if (items.length === 0) items.push(h('li', { class: 'muted' }, 'No turns yet.'));
    countEl.textContent = ` · ${recorded.length} turn${recorded.length === 1 ? '' : 's'}`;
    mount(transcript, items);
    transcript.scrollTop = transcript.scrollHeight;
  }

  function turnItem(t) {
    const role = t.role || 'agent';
    return h(
      'li',
      {
        class: `turn turn-${role}${t.streaming ? ' turn-streaming' : ''}`,
        'data-role': role,
        'data-turn-index': t.turnIndex ?? '',
        'data-message-id': t.messageId,
      },
      h(
        'div',
        { class: 'turn-head' },
        h('strong', {}, role === 'user' ? 'You' : t.from || role),
        t.turnIndex !== undefined ? ` · #${t.turnIndex}` : '',
        t.ts ? [' · ', timeEl(new Date(t.ts).toISOString())] : '',
        t.streaming ? ' · typing…' : '',
      ),
      typeof t.content === 'string' ? h('div', { class: 'turn-body' }, t.content) : jsonBlock(t.content),
    );
  }

  function recordedIndex() {
    let max = -1;
    for (const t of turns.values()) max = Math.max(max, t.turnIndex);
    return max;
  }

  /** Follows the run's messages stream, reconnecting from the last event id until closed. */
  async function follow() {
    while (!signal.aborted && !closed) {
      try {
        live = true;
        paintStatus();
        await streamEvents(paths.events(runId, 'messages'), onEvent, { signal, lastEventId });
        // The server ends the stream when the run is terminal.
        live = false;
        await refreshTurns();
        paintStatus();
        return;
      } catch (e) {
        live = false;
        paintStatus();
        if (signal.aborted) return;
        if (e instanceof ApiFailure && e.status >= 400 && e.status < 500) return mount(out, errorState(e));
        await new Promise((r) => setTimeout(r, RECONNECT_MS));
      }
    }
  }

  function onEvent(frame) {
    if (frame.id !== undefined) lastEventId = frame.id;
    const data = frame.data && typeof frame.data === 'object' ? frame.data : {};
    const p = data.payload && typeof data.payload === 'object' ? data.payload : data;
    const type = frame.event !== 'message' ? frame.event : data.type;
    if (type === 'ai.message.chunk') {
      const meta = p.meta || {};
      if (meta.conversationId && meta.conversationId !== conversation.conversationId) return;
      if (!meta.conversationId && p.nodeId && p.nodeId !== nodeId) return;
      const messageId = meta.messageId || `stream:${meta.turnIndex ?? 'next'}`;
      if (turns.has(messageId) || (meta.turnIndex !== undefined && meta.turnIndex <= recordedIndex())) return;
      const s = streaming.get(messageId) || {
        text: '',
        turnIndex: meta.turnIndex,
        from: meta.speakerId,
        finished: false,
      };
      s.text += typeof p.chunk === 'string' ? p.chunk : '';
      if (p.isLast) s.ended = true;
      streaming.set(messageId, s);
      paintTranscript();
    } else if (type && type.startsWith('conversation.')) {
      if (p.conversationId && p.conversationId !== conversation.conversationId) return;
      // The reply that streamed is recorded now; the refresh below replaces its bubble.
      for (const s of streaming.values()) if (s.ended) s.finished = true;
      if (type === 'conversation.closed') {
        closed = true;
        render();
      }
      void refreshTurns();
    }
  }

  async function sendTurn() {
    const content = input.value.trim();
    if (!content || closed) return;
    const turn = { messageId: uuid(), from: 'user', role: 'user', content };
    send.disabled = true;
    mount(out);
    try {
      const result = await api('POST', paths.resolveConversation(runId), {
        nodeId,
        operation: 'exchange',
        turn,
      });
      turns.set(turn.messageId, {
        ...turn,
        ts: Date.now(),
        turnIndex: result.turnIndex ?? recordedIndex() + 1,
      });
      input.value = '';
      paintTranscript();
      void refreshTurns();
    } catch (e) {
      mount(out, errorState(e));
    } finally {
      send.disabled = closed;
      input.focus();
    }
  }

  async function closeConversation() {
    close.disabled = true;
    send.disabled = true;
    try {
      await api('POST', paths.resolveConversation(runId), { nodeId, operation: 'close' });
      closed = true;
      render();
      mount(
        out,
        h(
          'div',
          { class: 'notice notice-ok', 'data-testid': 'resolve-result', 'data-status': 'resolved' },
          h('strong', {}, 'Conversation closed.'),
          ' The run resumes; its status above updates live.',
        ),
      );
      void refreshTurns();
    } catch (e) {
      paintStatus();
      mount(out, errorState(e));
    }
  }

  void start();
  return () => {
    controller.abort();
    clearInterval(pollTimer);
  };
}
