import { encodeKeysetCursor, isStorableText, parseKeysetCursor } from './keyset-cursor';

const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('keyset cursor codec', () => {
  it('decodes what it encodes', () => {
    const at = new Date('2026-11-25T13:52:24.123Z');
    expect(parseKeysetCursor(encodeKeysetCursor(at, 'run-1'))).toEqual({
      at: '2026-11-25T13:52:24.123Z',
      id: 'run-1',
    });
    expect(parseKeysetCursor(encodeKeysetCursor(new Date('0001-01-01T00:00:00.000Z'), 'a'))).toBeDefined();
  });

  it('refuses instants Postgres cannot take or the host never writes', () => {
    for (const at of [
      '+200000-01-01T00:00:00.000Z', // parses in JavaScript, not in Postgres
      '-000001-01-01T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '2024-02-30T00:00:00.000Z', // rolls over to March in JavaScript
      '2024-01-01',
      '2024-01-01T00:00:00Z',
      '2024-01-01T00:00:00.000+01:00',
      'yesterday',
    ]) {
      expect(parseKeysetCursor(raw([at, 'run-1']))).toBeUndefined();
    }
  });

  it('refuses anything that is not a base64url [at, id] pair with a storable id', () => {
    const at = '2026-01-01T00:00:00.000Z';
    for (const cursor of [
      '',
      'not base64!',
      raw({ at, id: 'x' }),
      raw([at]),
      raw([at, 'x', 'y']),
      raw([at, 5]),
      raw([at, '']),
      raw([at, 'x'.repeat(201)]),
      raw([at, 'a\u0000']),
      Buffer.from('[').toString('base64url'),
      'A'.repeat(513),
    ]) {
      expect(parseKeysetCursor(cursor)).toBeUndefined();
    }
  });

  it('calls text storable unless it holds U+0000 or a lone surrogate', () => {
    expect(['', 'run-1', 'ünïcödé', '\u{1F600}'].every(isStorableText)).toBe(true);
    expect(['a\u0000', '\uD800', 'x\uDC00y'].some(isStorableText)).toBe(false);
  });
});
