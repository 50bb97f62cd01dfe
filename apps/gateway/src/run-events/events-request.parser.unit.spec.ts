import { parseLastEventId, wantsJson } from './events-request.parser';

describe('wantsJson', () => {
  it.each([
    ['application/json', true],
    ['application/json, text/plain', true],
    ['text/event-stream', false],
    ['text/event-stream, application/json', false],
    ['*/*', false],
    [undefined, false],
  ])('%j → %s', (accept, json) => expect(wantsJson(accept)).toBe(json));
});

describe('parseLastEventId', () => {
  it('reads a sequence, or nothing when absent', () => {
    expect(parseLastEventId('41')).toBe(41);
    expect(parseLastEventId(' -1 ')).toBe(-1);
    expect(parseLastEventId(undefined)).toBeUndefined();
    expect(parseLastEventId('')).toBeUndefined();
  });

  it.each([['abc'], ['1.5'], ['-2'], ['1e3']])('refuses %j as validation_error', (header) => {
    expect(() => parseLastEventId(header)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });
});
