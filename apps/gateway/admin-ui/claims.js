// Who works on an interrupt: claim and release (ADR 0035), the principal this tab acts as, and the
// claim card of the resolve view, which follows the run's event stream.

import { api, ApiFailure, paths, streamEvents } from './api.js';
import { h, mount, timeEl } from './dom.js';

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
export async function claimAction(action, runId, nodeId) {
  const answer = await api(
    'POST',
    action === 'claim' ? paths.claim(runId, nodeId) : paths.release(runId, nodeId),
    {},
  );
  if (action === 'claim') rememberPrincipal(answer.claimedBy);
  return answer;
}

/**
 * Who works on this interrupt (its claim, from the inbox row): a warning when someone else holds a
 * live claim (an answer still goes through, and says whose claim it crossed), and the claim and
 * release buttons. It follows the run's event stream, so a claim, release or lapsed lease by
 * someone else shows as it happens (`interrupt.claimed` / `interrupt.released`, ADR 0035).
 */
export function claimPanel(runId, nodeId, pending, signal) {
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
