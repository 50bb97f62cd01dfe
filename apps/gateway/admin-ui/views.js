// The pending-interrupt list and the resolve view (approval, clarification, any other kind);
// conversations have their own module. A view renders into `root` and returns its cleanup.

import { api, ApiFailure, paths, streamEvents, TERMINAL_STATUSES } from './api.js';
import { conversationPanel, looksLikeConversation } from './conversation.js';
import {
  answerInput,
  badge,
  copyButton,
  emptyState,
  errorState,
  formatAge,
  h,
  jsonBlock,
  loadingState,
  mount,
  timeEl,
} from './dom.js';
import { INTERRUPT_KINDS } from './vocabulary.js';

const LIST_REFRESH_MS = 5000;

/** The pending list's columns; the first says what is asked (its kind and its title or questions). */
const COLUMNS = ['Asked', 'Run', 'Node', 'Workflow', 'Requested at', 'Age', 'Claimed by', ''];

/** The inbox filters the list keeps in its hash (`#/?kind=…&workflowId=…`), as `GET /v1/interrupts` takes them. */
const FILTERS = ['kind', 'workflowId', 'approver', 'assignee', 'claimed', 'sort'];

/**
 * Who this page acts as: the API does not say who a key is until it answers a claim (`claimedBy`),
 * so the page remembers the principal its last claim reported (this tab only).
 */
const PRINCIPAL_KEY = 'openwop.admin.principal';
export function rememberedPrincipal() {
  try {
    return sessionStorage.getItem(PRINCIPAL_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
function rememberPrincipal(principal) {
  try {
    if (principal) sessionStorage.setItem(PRINCIPAL_KEY, principal);
  } catch {
    // storage refused: the warning then shows for every claim, which errs on the safe side
  }
}

/** Claims (or releases) an interrupt; answers the API's body or throws its refusal. */
async function claimAction(action, runId, nodeId) {
  const answer = await api(
    'POST',
    action === 'claim' ? paths.claim(runId, nodeId) : paths.release(runId, nodeId),
    {},
  );
  if (action === 'claim') rememberPrincipal(answer.claimedBy);
  return answer;
}

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
const RUN_POLL_MS = 1000;

/** `#/runs/<runId>/interrupts/<nodeId>`: the resolve view of one pending interrupt. */
export function interruptHash(runId, nodeId) {
  return `#/runs/${encodeURIComponent(runId)}/interrupts/${encodeURIComponent(nodeId)}`;
}

function absoluteLink(hash) {
  return `${location.origin}${location.pathname}${hash}`;
}

// ---------------------------------------------------------------------------------------------
// Pending interrupts

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

// ---------------------------------------------------------------------------------------------
// One interrupt

/** `#/runs/<runId>/interrupts/<nodeId>`: the interrupt, its links, and the form for its kind. */
export function interruptView(root, { runId, nodeId }) {
  const controller = new AbortController();
  const cleanups = [() => controller.abort()];
  mount(root, loadingState('Loading the interrupt…'));

  async function load() {
    try {
      const [run, listed] = await Promise.all([
        api('GET', paths.run(runId), undefined, { signal: controller.signal }),
        api('GET', paths.interrupts({ runId }), undefined, { signal: controller.signal }),
      ]);
      const pending = listed.interrupts.find((i) => i.nodeId === nodeId);
      const snapshotInterrupt = run.interrupt && run.interrupt.nodeId === nodeId ? run.interrupt : undefined;
      render(run, pending, snapshotInterrupt);
    } catch (e) {
      if (e.name === 'AbortError') return;
      mount(
        root,
        backLink(),
        errorState(e, () => void load()),
      );
    }
  }

  function render(run, pending, snapshotInterrupt) {
    const interrupt = pending ?? snapshotInterrupt;
    const status = h('span', { 'data-testid': 'run-status' }, badge(run.status));
    const ageEl = h('span', { class: 'age' });
    const tickAge = () => {
      if (interrupt) ageEl.textContent = formatAge(Date.now() - new Date(interrupt.requestedAt).getTime());
    };
    tickAge();
    const ticker = setInterval(tickAge, 1000);
    cleanups.push(() => clearInterval(ticker));
    const links = linksPanel(runId, nodeId, snapshotInterrupt);
    const head = h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'card-head' },
        h('h1', {}, titleOf(interrupt, nodeId)),
        h('div', { class: 'toolbar' }, h('span', { class: 'muted' }, 'Run status'), status),
      ),
      h(
        'dl',
        { class: 'meta' },
        h(
          'div',
          { class: 'meta-item meta-wide' },
          h('dt', {}, 'Run'),
          h('dd', {}, h('code', { class: 'id' }, runId)),
        ),
        metaItem('Node', h('code', {}, nodeId)),
        metaItem('Workflow', run.workflowId ?? (interrupt && interrupt.workflowId) ?? '—'),
        interrupt ? metaItem('Kind', badge(interrupt.kind, 'kind')) : null,
        interrupt ? metaItem('Requested at', timeEl(interrupt.requestedAt)) : null,
        interrupt ? metaItem('Age', ageEl) : null,
        interrupt && interrupt.timeoutMs
          ? metaItem(
              'Times out',
              timeEl(new Date(new Date(interrupt.requestedAt).getTime() + interrupt.timeoutMs).toISOString()),
            )
          : null,
      ),
      links,
    );
    const form = h('section', { class: 'card', 'data-testid': 'resolve-card' });
    cleanups.push(
      watchRun(runId, controller.signal, (snapshot) => {
        mount(status, badge(snapshot.status));
        root.dataset.runStatus = snapshot.status;
        if (TERMINAL_STATUSES.has(snapshot.status)) {
          // Nothing can be resolved any more, and the token links stopped working.
          clearInterval(ticker);
          form.querySelectorAll('button, input, textarea, select').forEach((el) => (el.disabled = true));
          links
            .querySelectorAll('[data-testid=token-link], .token-link')
            .forEach((el) => el.classList.add('stale'));
        }
      }),
    );
    root.dataset.runStatus = run.status;
    if (!interrupt) {
      const conversation = h('div');
      mount(
        root,
        backLink(),
        head,
        h(
          'section',
          { class: 'card' },
          emptyState(
            `Nothing is pending at node ${nodeId}.`,
            `It was resolved, or the run moved on (run status: ${run.status}).`,
          ),
        ),
        conversation,
      );
      // A closed conversation is still worth reading.
      cleanups.push(
        conversationPanel(conversation, { runId, nodeId, interrupt: undefined, quietIfMissing: true }),
      );
      return;
    }
    mount(root, backLink(), claimPanel(runId, nodeId, pending, controller.signal), head, form);
    if (interrupt.kind === 'approval') approvalForm(form, runId, nodeId, interrupt);
    else if (interrupt.kind === 'clarification') clarificationForm(form, runId, nodeId, interrupt);
    else if (looksLikeConversation(interrupt))
      cleanups.push(
        conversationPanel(form, {
          runId,
          nodeId,
          interrupt,
          fallback: () => genericForm(form, runId, nodeId, interrupt),
        }),
      );
    else genericForm(form, runId, nodeId, interrupt);
  }

  void load();
  return () => cleanups.forEach((c) => c());
}

/**
 * Who works on this interrupt (its claim, from the inbox row): a warning when someone else holds a
 * live claim (an answer still goes through, and says whose claim it crossed), and the claim and
 * release buttons. It follows the run's event stream, so a claim, release or lapsed lease by
 * someone else shows as it happens (`interrupt.claimed` / `interrupt.released`, ADR 0035).
 */
function claimPanel(runId, nodeId, pending, signal) {
  const panel = h('section', { class: 'card claim-card', 'data-testid': 'claim-card' });
  const show = (row, error) => {
    const me = rememberedPrincipal();
    const holder = row && row.assignee;
    const otherHolds = holder !== undefined && holder !== me;
    mount(
      panel,
      otherHolds
        ? h(
            'p',
            { class: 'notice notice-warn', role: 'alert', 'data-testid': 'claim-warning' },
            `${holder} is working on this (claimed until `,
            timeEl(row.claimExpiresAt),
            '). You can still answer; your answer will say it crossed their claim.',
          )
        : h(
            'p',
            { class: 'muted', 'data-testid': 'claim-state' },
            holder
              ? h('span', {}, 'You hold the claim until ', timeEl(row.claimExpiresAt), '.')
              : 'Nobody has claimed this yet.',
          ),
      h(
        'div',
        { class: 'toolbar' },
        !otherHolds
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn',
                'data-testid': 'claim-button',
                onclick: () => void act('claim'),
              },
              holder ? 'Renew claim' : 'Claim',
            )
          : null,
        holder && !otherHolds
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn',
                'data-testid': 'release-button',
                onclick: () => void act('release'),
              },
              'Release',
            )
          : null,
      ),
      error ? h('p', { class: 'error-text', role: 'alert' }, error) : null,
    );
  };
  async function act(action) {
    try {
      const answer = await claimAction(action, runId, nodeId);
      show(
        answer.claimedBy ? { assignee: answer.claimedBy, claimExpiresAt: answer.claimExpiresAt } : undefined,
      );
    } catch (e) {
      const d = e instanceof ApiFailure && e.details ? e.details : {};
      show(d.claimedBy ? { assignee: d.claimedBy, claimExpiresAt: d.claimExpiresAt } : pending, e.message);
    }
  }
  show(pending);
  void followClaims(runId, nodeId, signal, show);
  return panel;
}

/**
 * Calls `show` with each claim change of the interrupt at `nodeId` on the run's stream (its history
 * first, so the last change wins), until the run ends or `signal` aborts. A claim whose lease has
 * already run out reads as none (its lapse may not be on the log yet).
 */
async function followClaims(runId, nodeId, signal, show) {
  try {
    await streamEvents(
      paths.events(runId),
      ({ data }) => {
        if (!data || !data.payload || (data.payload.nodeId ?? data.nodeId) !== nodeId) return;
        if (data.type === 'interrupt.claimed') {
          const live = Date.parse(data.payload.expiresAt) > Date.now();
          show(
            live ? { assignee: data.payload.claimedBy, claimExpiresAt: data.payload.expiresAt } : undefined,
          );
        } else if (data.type === 'interrupt.released') {
          show(undefined);
        }
      },
      { signal },
    );
  } catch {
    // The panel keeps what it showed; the buttons still answer with the current claim.
  }
}

function backLink() {
  return h('nav', { class: 'crumbs' }, h('a', { href: '#/' }, '← Pending interrupts'));
}

function metaItem(label, value) {
  return h('div', { class: 'meta-item' }, h('dt', {}, label), h('dd', {}, value));
}

function titleOf(interrupt, nodeId) {
  if (!interrupt) return `Node ${nodeId}`;
  const d = interrupt.data || {};
  if (interrupt.kind === 'approval' && d.title) return d.title;
  if (interrupt.kind === 'clarification') return 'Clarification needed';
  if (looksLikeConversation(interrupt)) return d.title || 'Conversation';
  return `${interrupt.kind} at ${nodeId}`;
}

/**
 * The links of the pending interrupt: this page's deep link, and the signed links (RFC 0093) the
 * run snapshot carries for this key: the resolve link (`callbackUrl`, usable without an API key)
 * only when the key may resolve (`approvals:respond`), the inspect-only link (`inspectUrl`) for any
 * reader; once the tokens expired, a note instead of links.
 */
function linksPanel(runId, nodeId, snapshotInterrupt) {
  const items = [
    h(
      'li',
      {},
      h('span', { class: 'link-label' }, 'This page'),
      copyButton(absoluteLink(interruptHash(runId, nodeId)), 'Copy link'),
    ),
  ];
  const i = snapshotInterrupt || {};
  if (i.callbackUrl) {
    items.push(
      h(
        'li',
        { 'data-testid': 'token-link' },
        h('span', { class: 'link-label' }, 'Signed resolve link'),
        h('code', { class: 'id', title: i.callbackUrl }, i.callbackUrl),
        copyButton(i.callbackUrl, 'Copy resolve link'),
      ),
    );
  }
  if (i.inspectUrl) {
    items.push(
      h(
        'li',
        { class: 'token-link', 'data-testid': 'inspect-link' },
        h('span', { class: 'link-label' }, 'Inspect-only link'),
        h('code', { class: 'id', title: i.inspectUrl }, i.inspectUrl),
        copyButton(i.inspectUrl, 'Copy inspect link'),
      ),
    );
  }
  if (i.tokenExpired) {
    items.push(
      h(
        'li',
        { class: 'muted' },
        h(
          'span',
          {},
          'The signed links expired ',
          timeEl(i.tokenExpiresAt),
          '; answer here with an API key.',
        ),
      ),
    );
  } else if (i.tokenExpiresAt) {
    items.push(
      h(
        'li',
        { class: 'muted' },
        h(
          'span',
          {},
          'Token links expire ',
          timeEl(i.tokenExpiresAt),
          ' and stop working once the interrupt is resolved or the run ends.',
        ),
      ),
    );
  }
  return h('div', { class: 'links' }, h('h2', {}, 'Links'), h('ul', { class: 'link-list' }, items));
}

/** Polls the run until it is terminal or `signal` aborts; returns a stop function. */
export function watchRun(runId, signal, onSnapshot) {
  let stopped = false;
  let timer;
  const poll = async () => {
    if (stopped || signal.aborted) return;
    try {
      const run = await api('GET', paths.run(runId), undefined, { signal });
      onSnapshot(run);
      if (TERMINAL_STATUSES.has(run.status)) return;
    } catch (e) {
      if (e.name === 'AbortError') return;
      // keep polling: a transient failure should not freeze the status
    }
    if (!stopped) timer = setTimeout(() => void poll(), RUN_POLL_MS);
  };
  timer = setTimeout(() => void poll(), RUN_POLL_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Refusals after which this interrupt can no longer be answered. */
const GONE_CODES = new Set([
  'interrupt_already_resolved',
  'interrupt_cancelled',
  'interrupt_not_found',
  'interrupt_expired',
]);

/**
 * Sends a resume value and shows the outcome in `out`. Resolves with the result, or undefined when
 * refused (the envelope's message is shown).
 */
async function submit(out, runId, nodeId, resumeValue, buttons) {
  buttons.forEach((b) => (b.disabled = true));
  mount(out, loadingState('Sending…'));
  try {
    const result = await api('POST', paths.resolve(runId, nodeId), { resumeValue });
    // An answer that crossed someone else's claim says so (ADR 0035).
    const crossed = result.claimedBy
      ? h(
          'p',
          { class: 'notice notice-warn', 'data-testid': 'crossed-claim' },
          `${result.claimedBy} held a claim on this until `,
          timeEl(result.claimExpiresAt),
          '; your answer was recorded all the same.',
        )
      : null;
    if (result.status === 'resolved') {
      mount(
        out,
        h(
          'div',
          { class: 'notice notice-ok', 'data-testid': 'resolve-result', 'data-status': 'resolved' },
          h('strong', {}, 'Resolved.'),
          ' The run resumes; its status above updates live.',
        ),
        crossed,
      );
    } else {
      buttons.forEach((b) => (b.disabled = b.dataset.offered === 'false'));
      mount(
        out,
        h(
          'div',
          { class: 'notice', 'data-testid': 'resolve-result', 'data-status': result.status },
          h('strong', {}, 'Recorded.'),
          ' The interrupt stays pending (an ask, or a vote short of the quorum).',
        ),
      );
    }
    return result;
  } catch (e) {
    const gone = e instanceof ApiFailure && GONE_CODES.has(e.code);
    buttons.forEach((b) => (b.disabled = gone || b.dataset.offered === 'false'));
    mount(out, errorState(e instanceof ApiFailure ? e : new ApiFailure(0, 'error', String(e))));
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Approval

const APPROVAL_ACTIONS = [
  { id: 'accept', label: 'Accept', offeredAs: 'accept', style: 'btn-primary' },
  { id: 'reject', label: 'Reject', offeredAs: 'reject', style: 'btn-danger' },
  { id: 'edit', label: 'Edit & accept', offeredAs: 'edit', style: '' },
  { id: 'refine', label: 'Refine', offeredAs: 'refine', style: '' },
  { id: 'ask', label: 'Ask', offeredAs: 'ask', style: '' },
];

/** The actions the gate offers (`data.actions`; `edit` offers `edit-accept`; none listed = accept and reject). */
function offeredActions(data) {
  const listed = Array.isArray(data.actions) ? data.actions : [];
  const offered = new Set(listed.map((a) => (a === 'edit-accept' ? 'edit' : a)));
  if (![...offered].some((a) => APPROVAL_ACTIONS.some((x) => x.offeredAs === a)))
    return new Set(['accept', 'reject']);
  return offered;
}

/**
 * The approval view: the artifact, the gate's policy, and the five actions (`interrupt.md`
 * §approval): accept and reject (with optional feedback), refine (feedback required, sent as
 * `refineFeedback {scope: whole, text}`), edit (`edit-accept` with the edited artifact JSON) and
 * ask (a question; the interrupt stays pending).
 */
function approvalForm(card, runId, nodeId, interrupt) {
  const d = interrupt.data || {};
  const offered = offeredActions(d);
  const out = h('div', { class: 'result' });
  const feedback = h('textarea', {
    id: 'feedback',
    rows: 3,
    placeholder: 'Feedback: required for Refine, an optional note for Accept and Reject.',
  });
  const question = h('input', {
    id: 'ask-question',
    type: 'text',
    placeholder: 'Your question to the requester',
  });
  const edited = h(
    'textarea',
    { id: 'edited-artifact', rows: 8, spellcheck: 'false', class: 'mono' },
    JSON.stringify(d.artifactData ?? null, null, 2),
  );
  const editBox = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'edited-artifact' }, 'Edited artifact (JSON)'),
    edited,
  );
  const askBox = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'ask-question' }, 'Question'),
    question,
  );

  const buttons = APPROVAL_ACTIONS.map((a) => {
    const isOffered = offered.has(a.offeredAs);
    return h(
      'button',
      {
        type: 'button',
        class: `btn ${a.style}`,
        'data-action': a.id,
        'data-offered': String(isOffered),
        disabled: !isOffered,
        title: isOffered ? undefined : 'Not offered by this gate',
        onclick: () => void act(a.id),
      },
      a.label,
    );
  });

  async function act(action) {
    const note = feedback.value.trim();
    let value;
    if (action === 'accept' || action === 'reject') value = { action, ...(note ? { feedback: note } : {}) };
    else if (action === 'refine') {
      if (!note)
        return mount(
          out,
          errorState(new ApiFailure(0, 'validation_error', 'Refine needs feedback: say what should change.')),
        );
      value = { action: 'refine', refineFeedback: { scope: 'whole', text: note } };
    } else if (action === 'edit') {
      if (editBox.hidden) {
        editBox.hidden = false;
        edited.focus();
        return mount(out, h('p', { class: 'muted' }, 'Edit the artifact, then press Edit & accept again.'));
      }
      try {
        value = { action: 'edit-accept', editedArtifactData: JSON.parse(edited.value) };
      } catch (e) {
        return mount(
          out,
          errorState(
            new ApiFailure(0, 'validation_error', `The edited artifact is not valid JSON: ${e.message}`),
          ),
        );
      }
    } else if (action === 'ask') {
      if (askBox.hidden || !question.value.trim()) {
        askBox.hidden = false;
        question.focus();
        return mount(out, h('p', { class: 'muted' }, 'Type your question, then press Ask again.'));
      }
      value = { action: 'ask', question: question.value.trim() };
    }
    const result = await submit(out, runId, nodeId, value, buttons);
    if (result && action === 'ask') question.value = '';
  }

  mount(
    card,
    h('h2', {}, 'Approval'),
    d.description ? h('p', { class: 'lead' }, d.description) : null,
    h(
      'dl',
      { class: 'meta' },
      metaItem('Artifact type', d.artifactType ?? '—'),
      h(
        'div',
        { class: 'meta-item meta-wide' },
        h('dt', {}, 'Artifact id'),
        h('dd', {}, h('code', {}, d.artifactId ?? '—')),
      ),
      d.requiredApprovals > 1
        ? metaItem('Approvals needed', `${d.requiredApprovals} (${d.rejectionPolicy ?? 'single-veto'})`)
        : null,
      Array.isArray(d.approversList) && d.approversList.length
        ? metaItem('Approvers (advisory)', d.approversList.join(', '))
        : null,
    ),
    h('h3', {}, 'Artifact data'),
    jsonBlock(d.artifactData, { 'data-testid': 'artifact' }),
    h('div', { class: 'field' }, h('label', { for: 'feedback' }, 'Feedback'), feedback),
    editBox,
    askBox,
    h('div', { class: 'actions', 'data-testid': 'approval-actions' }, buttons),
    out,
  );
}

// ---------------------------------------------------------------------------------------------
// Clarification

/** One input per question, shaped by its `schema` (enum → select, number, boolean, else text). */
function clarificationForm(card, runId, nodeId, interrupt) {
  const d = interrupt.data || {};
  const questions = Array.isArray(d.questions)
    ? d.questions.filter((q) => q && typeof q.id === 'string')
    : [];
  const out = h('div', { class: 'result' });
  const inputs = questions.map((q, i) => ({ q, ...answerInput(q, `answer-${i}`) }));
  const send = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Send answers');
  const form = h(
    'form',
    {
      class: 'form',
      'data-testid': 'clarification-form',
      onsubmit: (e) => {
        e.preventDefault();
        const answers = [];
        for (const { q, read } of inputs) {
          try {
            answers.push({ id: q.id, answer: read() });
          } catch (err) {
            mount(out, errorState(new ApiFailure(0, 'validation_error', `${q.id}: ${err.message}`)));
            return;
          }
        }
        void submit(out, runId, nodeId, { answers }, [send]);
      },
    },
    inputs.map(({ q, el, id }) =>
      h(
        'div',
        { class: 'field' },
        h('label', { for: id }, q.question ?? q.id, ' ', h('code', { class: 'muted' }, q.id)),
        el,
      ),
    ),
    h('div', { class: 'actions' }, send),
  );
  mount(
    card,
    h('h2', {}, 'Clarification'),
    d.contextType ? h('p', { class: 'muted' }, d.contextType) : null,
    questions.length ? form : emptyState('This clarification has no questions.'),
    out,
  );
}

// ---------------------------------------------------------------------------------------------
// Any other kind

const TEMPLATES = {
  'external-event': () => ({ eventPayload: {} }),
  'low-confidence': (d) => (d && d.decision !== undefined ? d.decision : {}),
};

/** The payload and a JSON box for the resume value (external-event, custom, low-confidence…). */
export function genericForm(card, runId, nodeId, interrupt) {
  const template = (TEMPLATES[interrupt.kind] ?? (() => ({})))(interrupt.data);
  const area = h(
    'textarea',
    { id: 'resume-value', rows: 8, class: 'mono', spellcheck: 'false' },
    JSON.stringify(template, null, 2),
  );
  const out = h('div', { class: 'result' });
  const send = h('button', { type: 'button', class: 'btn btn-primary' }, 'Resolve');
  send.addEventListener('click', () => {
    let value;
    try {
      value = JSON.parse(area.value);
    } catch (e) {
      mount(
        out,
        errorState(new ApiFailure(0, 'validation_error', `The resume value is not valid JSON: ${e.message}`)),
      );
      return;
    }
    void submit(out, runId, nodeId, value, [send]);
  });
  mount(
    card,
    h('h2', {}, interrupt.kind),
    h('h3', {}, 'Payload'),
    jsonBlock(interrupt.data),
    interrupt.resumeSchema ? [h('h3', {}, 'Resume schema'), jsonBlock(interrupt.resumeSchema)] : null,
    h('div', { class: 'field' }, h('label', { for: 'resume-value' }, 'Resume value (JSON)'), area),
    h('div', { class: 'actions' }, send),
    out,
  );
}
