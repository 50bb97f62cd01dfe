import { prefersHtml } from './accept-negotiation';

describe('prefersHtml (signed link: the page or the JSON answer)', () => {
  it.each([
    // Browsers navigating to a link.
    [
      'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
      true,
    ],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['text/html', true],
    ['TEXT/HTML; charset=utf-8', true],
    ['application/json;q=0.5, text/html', true],
    ['text/html, application/json', true],
  ])('%s → page', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });

  it.each([
    // What JSON clients send: nothing, curl and fetch's */*, the SDK's application/json.
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', false],
    ['application/json, text/plain, */*', false],
    ['text/*', false],
    ['text/html;q=0', false],
    ['text/html;q=0.5, application/json', false],
    ['text/html;q=0.5, */*', false],
    ['application/*, text/html;q=0.9', false],
    ['text/event-stream', false],
  ])('%s → JSON', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
