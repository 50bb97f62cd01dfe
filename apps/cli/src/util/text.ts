/** A value as text for people: strings as they are, anything else as JSON. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}
