import { findUnstorableText, unstorableTextRefusal } from './unstorable-text';

describe('unstorable text', () => {
  it('finds NUL characters and unpaired surrogates in strings and keys, with their JSON pointer', () => {
    expect(findUnstorableText('a\u0000b')).toBe('');
    expect(findUnstorableText({ a: [1, { b: 'x\uD800' }] })).toBe('/a/1/b');
    expect(findUnstorableText({ ['k\u0000']: 1 })).toBe('/k\u0000');
    expect(findUnstorableText({ 'a/b': { c: '\uDC00' } })).toBe('/a~1b/c');
  });

  it('finds numbers JSON parsing took past double precision (1e400 is Infinity, written back as null)', () => {
    expect(findUnstorableText(JSON.parse('{"inputs":{"x":[1, 1e400]}}'))).toBe('/inputs/x/1');
    expect(findUnstorableText(JSON.parse('{"x":-1e400}'))).toBe('/x');
    expect(findUnstorableText(JSON.parse('{"x":1.7e308,"y":5e-324,"z":1e-400}'))).toBeUndefined();
  });

  it('lets ordinary text, paired surrogates and non-strings through', () => {
    expect(findUnstorableText({ a: 'Ω≈ç 🙂', b: [null, 1, true, { c: '\\u0000' }] })).toBeUndefined();
    expect(findUnstorableText(undefined)).toBeUndefined();
  });

  it('refuses an encoded NUL in the URL and unstorable text in the body as validation_error', () => {
    expect(unstorableTextRefusal('/v1/runs/%00/cancel', undefined)?.code).toBe('validation_error');
    expect(unstorableTextRefusal('/v1/interrupts?runId=a%00', {})?.code).toBe('validation_error');
    expect(unstorableTextRefusal('/v1/runs', { inputs: { a: '\u0000' } })?.details).toEqual({
      errors: [
        {
          path: '/inputs/a',
          message: 'must not contain U+0000 or unpaired UTF-16 surrogates, nor numbers beyond ±1.8e308',
        },
      ],
    });
    expect(unstorableTextRefusal('/v1/runs/%2500', { workflowId: 'x' })).toBeUndefined();
  });
});
