// Links to one interrupt: this page's own deep link, and the signed links (RFC 0093) the run
// snapshot carries, each with a copy button.

import { copyButton, h, timeEl } from './dom.js';

/** `#/runs/<runId>/interrupts/<nodeId>`: the resolve view of one pending interrupt. */
export function interruptHash(runId, nodeId) {
  return `#/runs/${encodeURIComponent(runId)}/interrupts/${encodeURIComponent(nodeId)}`;
}

export function absoluteLink(hash) {
  return `${location.origin}${location.pathname}${hash}`;
}

/**
 * The links of the pending interrupt: this page's deep link, and the signed links (RFC 0093) the
 * run snapshot carries for this key: the resolve link (`callbackUrl`, usable without an API key)
 * only when the key may resolve (`approvals:respond`), the inspect-only link (`inspectUrl`) for any
 * reader; once the tokens expired, a note instead of links.
 */
export function linksPanel(runId, nodeId, snapshotInterrupt) {
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
