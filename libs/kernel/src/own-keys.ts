/**
 * Object keys are data, whatever their name. A record read from JSON is a plain object, so a bare
 * lookup `record[key]` of a key it does not hold answers what `Object.prototype` has under that name
 * (`constructor`, `toString`, `hasOwnProperty`, `__proto__`), and a bare assignment `record[key] = v`
 * of `__proto__` replaces the record's prototype instead of storing the value. These two helpers
 * look up and store own properties only.
 */

/** `record[key]` when `record` holds `key` itself, else undefined (never an inherited member). */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Stores `value` under `key` as an own, enumerable property (a `__proto__` key included). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
