/**
 * Canonical JSON: `JSON.stringify` of the value with every object's keys sorted (by UTF-16 code
 * units) and no whitespace. Two values that are equal as JSON give the same text, whatever order
 * their keys were written or stored in (Postgres `jsonb` reorders them).
 *
 * @throws TypeError for a value JSON cannot hold exactly: `undefined` (outside an object, where it
 * is dropped), a function, a symbol, a bigint, or a non-finite number.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON holds no ${String(value)}`);
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value))
        return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
      const entries = Object.keys(value)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
      return `{${entries.join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON holds no ${typeof value}`);
  }
}
