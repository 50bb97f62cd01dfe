import { errorCodeForStatus, retryAfterMs } from './http-status.mapper';

describe('errorCodeForStatus', () => {
  it.each([
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [429, 'rate_limited'],
    [400, 'bad_request'],
    [404, 'bad_request'],
    [422, 'bad_request'],
    [408, 'timeout'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [503, 'unavailable'],
    [302, 'protocol'],
  ])('maps HTTP %i to %s', (status, code) => {
    expect(errorCodeForStatus(status)).toBe(code);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds and an HTTP-date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:02 GMT' }), now)).toBe(2000);
  });

  it('prefers retry-after-ms, never goes negative, ignores garbage', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});
