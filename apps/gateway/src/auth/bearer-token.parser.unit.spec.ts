import { parseBearerToken } from './bearer-token.parser';

describe('parseBearerToken', () => {
  it.each([
    ['Bearer abc.def-123', 'abc.def-123'],
    ['bearer abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
  ])('reads %j', (header, token) => expect(parseBearerToken(header)).toBe(token));

  it.each([
    [undefined],
    [''],
    ['Bearer'],
    ['Bearer '],
    ['Basic abc'],
    ['Bearer a b'],
    ['Bearerabc'],
    [['Bearer a', 'Bearer b']],
  ])('refuses %j', (header) => expect(parseBearerToken(header)).toBeUndefined());
});
