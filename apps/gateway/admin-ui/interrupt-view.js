// `#/runs/<runId>/interrupts/<nodeId>`: one interrupt. Its run and status (followed live), who
// works on it (claims.js), its links (interrupt-links.js), and the card to answer it with: the
// answer card of its kind (answer-card.js) or the conversation (conversation.js).

import { api, paths, TERMINAL_STATUSES } from './api.js';
import { approvalCard, clarificationCard, genericCard } from './answer-card.js';
import { claimPanel } from './claims.js';
import { conversationPanel, looksLikeConversation } from './conversation.js';
import { badge, emptyState, errorState, formatAge, h, loadingState, metaItem, mount, timeEl } from './dom.js';
import { linksPanel } from './interrupt-links.js';

const RUN_POLL_MS = 1000;

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
    if (interrupt.kind === 'approval') approvalCard(form, runId, nodeId, interrupt);
    else if (interrupt.kind === 'clarification') clarificationCard(form, runId, nodeId, interrupt);
    else if (looksLikeConversation(interrupt))
      cleanups.push(
        conversationPanel(form, {
          runId,
          nodeId,
          interrupt,
          fallback: () => genericCard(form, runId, nodeId, interrupt),
        }),
      );
    else genericCard(form, runId, nodeId, interrupt);
  }

  void load();
  return () => cleanups.forEach((c) => c());
}

function backLink() {
  return h('nav', { class: 'crumbs' }, h('a', { href: '#/' }, '← Pending interrupts'));
}

function titleOf(interrupt, nodeId) {
  if (!interrupt) return `Node ${nodeId}`;
  const d = interrupt.data || {};
  if (interrupt.kind === 'approval' && d.title) return d.title;
  if (interrupt.kind === 'clarification') return 'Clarification needed';
  if (looksLikeConversation(interrupt)) return d.title || 'Conversation';
  return `${interrupt.kind} at ${nodeId}`;
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
