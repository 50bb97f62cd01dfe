import { ownValue, setOwn } from './own-keys';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('own keys', () => {
  it.each(PROTOTYPE_NAMES)(
    'ownValue(%s) of a record without that key is undefined, not an inherited member',
    (key) => {
      const record = JSON.parse('{"a": 1}') as Record<string, unknown>;
      expect(ownValue(record, key)).toBeUndefined();
      expect(ownValue(undefined, key)).toBeUndefined();
    },
  );

  it.each(PROTOTYPE_NAMES)('ownValue(%s) of a record holding that key answers its value', (key) => {
    const record = JSON.parse(`{${JSON.stringify(key)}: 7}`) as Record<string, unknown>;
    expect(ownValue(record, key)).toBe(7);
  });

  it.each(PROTOTYPE_NAMES)('setOwn(%s) stores an own property and leaves the prototype alone', (key) => {
    const record: Record<string, unknown> = {};
    setOwn(record, key, { x: 1 });
    expect(Object.hasOwn(record, key)).toBe(true);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(JSON.stringify(record)).toBe(`{${JSON.stringify(key)}:{"x":1}}`);
  });
});
