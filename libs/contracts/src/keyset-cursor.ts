import { MAX_CURSOR_LENGTH, MAX_ID_LENGTH } from './limits';

/** A keyset position: the sort instant (ISO-8601, ms, UTC) and the row id that breaks ties. */
export interface KeysetPosition {
  readonly at: string;
  readonly id: string;
}

/** The only spelling of an instant a cursor carries: what `Date.toISOString()` writes for years 0001..9999. */
const ISO_INSTANT = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A UTF-16 surrogate half without its partner: it has no UTF-8 form, so no Postgres text/jsonb form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether Postgres text can hold `s`: no U+0000 and no lone surrogate. */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

/**
 * The opaque cursor of a keyset page (`nextCursor` of `GET /v1/runs` and `GET /v1/interrupts`):
 * base64url of `[at, id]`.
 */
export function encodeKeysetCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

/**
 * The position in `cursor`, or `undefined` when it is not a cursor this host could have issued:
 * not base64url, longer than {@link MAX_CURSOR_LENGTH}, not `[at, id]`, an instant outside years
 * 1..9999 or in another spelling (a year `+200000` parses in JavaScript, not in Postgres), an
 * id longer than {@link MAX_ID_LENGTH} or with text Postgres cannot store.
 */
export function parseKeysetCursor(cursor: string): KeysetPosition | undefined {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [at, id] = value as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string') return undefined;
  const instant = ISO_INSTANT.exec(at);
  if (!instant || Number(instant[1]) < 1) return undefined;
  const time = Date.parse(at);
  if (Number.isNaN(time) || new Date(time).toISOString() !== at) return undefined; // e.g. 2024-02-30
  if (id.length === 0 || id.length > MAX_ID_LENGTH || !isStorableText(id)) return undefined;
  return { at, id };
}
