/**
 * JSON is the bus's only value format: what crosses the bus is a copy, never a shared object.
 * `undefined` travels as `null`, like a missing Kafka value.
 */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

export function decodeJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** Copies string headers into a fresh object; rejects non-string values at the edge. */
export function copyHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value !== 'string')
      throw new TypeError(`header ${name} must be a string, got ${typeof value}`);
    copy[name] = value;
  }
  return copy;
}
