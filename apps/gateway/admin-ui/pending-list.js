// `#/` (filters in the hash): the pending interrupts across runs, as the inbox serves them, with
// each row's claim and release buttons; refreshed every few seconds while visible.

import { api, paths } from './api.js';
import { claimAction, rememberedPrincipal } from './claims.js';
import {
  badge,
  copyButton,
  emptyState,
  errorState,
  formatAge,
  h,
  loadingState,
  mount,
  timeEl,
} from './dom.js';
import { absoluteLink, interruptHash } from './interrupt-links.js';
import { looksLikeConversation } from './conversation.js';
import { INTERRUPT_KINDS } from './vocabulary.js';

const LIST_REFRESH_MS = 5000;

/** The pending list's columns; the first says what is asked (its kind and its title or questions). */
const COLUMNS = ['Asked', 'Run', 'Node', 'Workflow', 'Requested at', 'Age', 'Claimed by', ''];

/** The inbox filters the list keeps in its hash (`#/?kind=…&workflowId=…`), as `GET /v1/interrupts` takes them. */
const FILTERS = ['kind', 'workflowId', 'approver', 'assignee', 'claimed', 'sort'];

/**
 * What an interrupt asks, in words, from its `data` (`interrupt.md` §"Per-kind payloads"): an
 * approval's title, a clarification's questions, a conversation's title or prompt, the event an
 * external-event waits for. Text only, never a token: the list carries none (ADR 0015).
 */
export function askedOf(interrupt) {
  const d = interrupt.data && typeof interrupt.data === 'object' ? interrupt.data : {};
  const str = (v) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  if (interrupt.kind === 'clarification' && Array.isArray(d.questions) && d.questions.length) {
    return d.questions.map((q) => str(q && q.question) ?? str(q && q.id) ?? '?').join(' · ');
  }
  if (interrupt.kind === 'external-event' && str(d.eventType)) return `Waits for ${d.eventType}`;
  if (looksLikeConversation(interrupt)) return str(d.title) ?? str(d.prompt) ?? 'Conversation turn';
  return (
    str(d.title) ??
    str(d.question) ??
    str(d.prompt) ??
    str(d.description) ??
    str(d.customKind) ??
    `${interrupt.kind} at ${interrupt.nodeId}`
  );
}

/** `#/` (optionally `?kind=`): pending interrupts across runs, newest first, filter by kind. */
export function pendingListView(root, { query }) {
  const kind = query.get('kind') ?? '';
  const filters = Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? '']).filter(([, v]) => v !== ''));
  const setFilter = (name, value) => {
    const next = new URLSearchParams({ ...filters, [name]: value });
    for (const [k, v] of [...next]) if (v === '') next.delete(k);
    const qs = next.toString();
    location.hash = qs ? `#/?${qs}` : '#/';
  };
  const textFilter = (name, label) =>
    h('input', {
      id: `${name}-filter`,
      class: 'filter-input',
      type: 'search',
      placeholder: label,
      'aria-label': `Filter by ${label.toLowerCase()}`,
      value: filters[name] ?? '',
      onchange: (e) => setFilter(name, e.target.value.trim()),
    });
  const choice = (name, label, options) =>
    h(
      'select',
      { id: `${name}-filter`, 'aria-label': label, onchange: (e) => setFilter(name, e.target.value) },
      options.map(([value, text]) => h('option', { value, selected: (filters[name] ?? '') === value }, text)),
    );
  const controller = new AbortController();
  let rows = [];
  let nextCursor = null;
  let fetchedAt = 0;
  let paged = false;
  let loadedOnce = false;

  const select = h(
    'select',
    { id: 'kind-filter', 'aria-label': 'Filter by kind', onchange: (e) => setFilter('kind', e.target.value) },
    h('option', { value: '' }, 'All kinds'),
    INTERRUPT_KINDS.map((k) => h('option', { value: k, selected: k === kind }, k)),
  );
  const counter = h('span', { class: 'muted', 'data-testid': 'pending-count' });
  const refreshing = h('span', { class: 'muted refreshing', hidden: true }, 'refreshing…');
  const body = h('div', { class: 'list-body' }, loadingState('Loading pending interrupts…'));
  const more = h('div', { class: 'list-more' });
  mount(
    root,
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'card-head' },
        h('h1', {}, 'Pending interrupts'),
        h(
          'div',
          { class: 'toolbar' },
          h('label', { for: 'kind-filter' }, 'Kind'),
          select,
          textFilter('workflowId', 'Workflow'),
          textFilter('approver', 'Approver'),
          textFilter('assignee', 'Assignee'),
          choice('claimed', 'Claimed', [
            ['', 'Claimed or not'],
            ['true', 'Claimed'],
            ['false', 'Unclaimed'],
          ]),
          choice('sort', 'Sort by age', [
            ['', 'Newest first'],
            ['-age', 'Oldest first'],
          ]),
          h('button', { type: 'button', class: 'btn', onclick: () => void load(false) }, 'Refresh'),
          refreshing,
          counter,
        ),
      ),
      body,
      more,
    ),
  );

  async function load(append) {
    if (loadedOnce) refreshing.hidden = false;
    try {
      const query = { limit: '50', ...filters, ...(append && nextCursor ? { cursor: nextCursor } : {}) };
      const page = await api('GET', paths.interrupts(query), undefined, { signal: controller.signal });
      fetchedAt = Date.now();
      rows = append ? rows.concat(page.interrupts) : page.interrupts;
      nextCursor = page.nextCursor;
      paged = paged || append;
      loadedOnce = true;
      render();
    } catch (e) {
      if (e.name === 'AbortError') return;
      mount(
        body,
        errorState(e, () => void load(false)),
      );
      mount(more);
    } finally {
      refreshing.hidden = true;
    }
  }

  function render() {
    counter.textContent = `${rows.length}${nextCursor ? '+' : ''} pending`;
    if (rows.length === 0) {
      mount(
        body,
        emptyState(
          kind
            ? `No pending ${kind} interrupts.`
            : Object.keys(filters).length
              ? 'No pending interrupts match.'
              : 'No pending interrupts.',
          'Runs waiting for a person or another system show up here.',
        ),
      );
    } else {
      mount(
        body,
        h(
          'table',
          { class: 'table', 'data-testid': 'pending-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              COLUMNS.map((t) => h('th', {}, t)),
            ),
          ),
          h('tbody', {}, rows.map(rowOf)),
        ),
      );
      tick();
    }
    mount(
      more,
      nextCursor
        ? h('button', { type: 'button', class: 'btn', onclick: () => void load(true) }, 'Load more')
        : null,
    );
  }

  // Each cell carries its column's name (`data-label`): on a narrow screen a row is a card and
  // every cell shows its label beside the value (admin.css).
  function rowOf(r) {
    const hash = interruptHash(r.runId, r.nodeId);
    const cell = (label, attrs, ...children) => h('td', { 'data-label': label, ...attrs }, ...children);
    return h(
      'tr',
      { 'data-run-id': r.runId, 'data-node-id': r.nodeId, 'data-kind': r.kind },
      cell(
        'Asked',
        { class: 'asked', 'data-testid': 'asked' },
        h('span', { class: 'asked-kind' }, badge(r.kind, 'kind')),
        ' ',
        askedOf(r),
      ),
      cell('Run', {}, h('code', { class: 'id', title: r.runId }, r.runId)),
      cell('Node', {}, h('code', {}, r.nodeId)),
      cell('Workflow', {}, r.workflowId),
      cell('Requested at', {}, timeEl(r.requestedAt)),
      cell('Age', { class: 'age', 'data-age-ms': r.ageMs }),
      cell(
        'Claimed by',
        { class: 'claim', 'data-testid': 'claimed-by' },
        r.assignee
          ? h('span', {}, r.assignee, ' ', h('span', { class: 'muted' }, 'until '), timeEl(r.claimExpiresAt))
          : h('span', { class: 'muted' }, '—'),
      ),
      h(
        'td',
        { class: 'row-actions' },
        h('a', { class: 'btn btn-small btn-primary', href: hash }, 'Open'),
        claimButton(r),
        copyButton(absoluteLink(hash), 'Copy link'),
      ),
    );
  }

  /** Claim when nobody holds it, release when this page's principal does; a refusal shows in the row. */
  function claimButton(r) {
    const mine = r.assignee !== undefined && r.assignee === rememberedPrincipal();
    if (r.assignee !== undefined && !mine) return null;
    const action = mine ? 'release' : 'claim';
    return h(
      'button',
      {
        type: 'button',
        class: 'btn btn-small',
        'data-testid': `${action}-button`,
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            await claimAction(action, r.runId, r.nodeId);
            await load(false);
          } catch (err) {
            e.target.replaceWith(h('span', { class: 'error-text', role: 'alert' }, err.message));
          }
        },
      },
      mine ? 'Release' : 'Claim',
    );
  }

  function tick() {
    for (const cell of body.querySelectorAll('td.age')) {
      cell.textContent = formatAge(Number(cell.dataset.ageMs) + (Date.now() - fetchedAt));
    }
  }

  void load(false);
  const ticker = setInterval(tick, 1000);
  const refresher = setInterval(() => {
    if (!paged && loadedOnce && document.visibilityState === 'visible') void load(false);
  }, LIST_REFRESH_MS);
  return () => {
    controller.abort();
    clearInterval(ticker);
    clearInterval(refresher);
  };
}
