// The resolve view's answer card for an approval, a clarification or any other kind: the request as
// an operator reads it (the gate's policy, the artifact as JSON, the payload and resume schema), the
// shared answer forms (answer-forms.js), sent with the API key. Conversations have their own module.

import { api, ApiFailure, paths } from './api.js';
import {
  approvalActions,
  approvalForm,
  clarificationForm,
  genericForm,
  questionsOf,
} from './answer-forms.js';
import { errorState, h, jsonBlock, loadingState, metaItem, mount, timeEl } from './dom.js';

/** Refusals after which this interrupt can no longer be answered. */
const GONE_CODES = new Set([
  'interrupt_already_resolved',
  'interrupt_cancelled',
  'interrupt_not_found',
  'interrupt_expired',
]);

/**
 * The answer forms' hooks for one interrupt: `submit` sends a resume value
 * (`POST /v1/runs/{runId}/interrupts/{nodeId}`) and shows the outcome in `out`; it resolves with
 * the result, or undefined when refused (the envelope's message is shown).
 */
function hooksFor(runId, nodeId) {
  return {
    submit: (resumeValue, { buttons, out }) => submit(out, runId, nodeId, resumeValue, buttons),
    showError: (out, message) => mount(out, errorState(new ApiFailure(0, 'validation_error', message))),
  };
}

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

/**
 * The approval: the artifact and the gate's policy, and all five actions, those the gate does not
 * offer disabled (an operator sees what the gate could have allowed). A key votes as its own
 * principal, so a gate that needs several approvals takes this key's vote.
 */
export function approvalCard(card, runId, nodeId, interrupt) {
  const d = interrupt.data || {};
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
    approvalForm(d, approvalActions(d), hooksFor(runId, nodeId)),
  );
}

/** The clarification: its questions as a form, each labelled with its id too. */
export function clarificationCard(card, runId, nodeId, interrupt) {
  const d = interrupt.data || {};
  mount(
    card,
    h('h2', {}, 'Clarification'),
    d.contextType ? h('p', { class: 'muted' }, d.contextType) : null,
    clarificationForm(questionsOf(d), hooksFor(runId, nodeId), { showIds: true }),
  );
}

/** Any other kind (external-event, custom, low-confidence…): the payload, its resume schema, a JSON box. */
export function genericCard(card, runId, nodeId, interrupt) {
  mount(
    card,
    h('h2', {}, interrupt.kind),
    h('h3', {}, 'Payload'),
    jsonBlock(interrupt.data),
    interrupt.resumeSchema ? [h('h3', {}, 'Resume schema'), jsonBlock(interrupt.resumeSchema)] : null,
    genericForm(interrupt, hooksFor(runId, nodeId)),
  );
}
