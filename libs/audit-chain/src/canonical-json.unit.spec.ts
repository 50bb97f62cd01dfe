import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: true, y: null }], c: 'x' }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('gives the same text for the same value written in another key order', () => {
    expect(canonicalJson({ x: 1, y: [2, 3] })).toBe(canonicalJson(JSON.parse('{"y":[2,3],"x":1}')));
  });

  it('escapes strings as JSON does', () => {
    expect(canonicalJson({ 'k"': 'a\nb\u2028' })).toBe(JSON.stringify({ 'k"': 'a\nb\u2028' }));
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], [BigInt(1)], [() => 1], [undefined]])(
    'refuses %p',
    (v) => {
      expect(() => canonicalJson(v)).toThrow(TypeError);
    },
  );
});
