/**
 * RFC 3339 §5.6 `date-time`: full date, `T`, time with optional fraction (at most 9 digits), and a
 * time zone (`Z` or `±hh:mm`). `T` and `Z` may be lower case (RFC 3339 §5.6, note).
 */
const RFC3339_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The instants a `timestamptz` column and `Date.toISOString()` both hold in the same spelling. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number): number =>
  month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;

/**
 * The instant `text` names when it is an RFC 3339 `date-time` (`2026-01-31T09:00:00Z`,
 * `2026-01-31T10:00:00.5+01:00`), else `undefined`: the one parsing of a timestamp the edge
 * accepts, so what reaches a query is a `Date`, never text for the database to read.
 *
 * Refused: anything else ISO 8601 allows (`2026`, `2026-01-31` without a time, week dates
 * `2026-W01-1`, ordinal dates `2026-001`, basic format `20260131T090000Z`, a local time without a
 * zone), field values out of range (`2026-02-30`, `T25:00`, an offset past `±23:59`), the leap
 * second `:60` (a JavaScript `Date` has none), more than 9 fraction digits, and instants outside
 * years 0001..9999 UTC. The fraction is kept to the millisecond (truncated).
 */
export function parseInstant(text: string): Date | undefined {
  const m = RFC3339_DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  const time = local.getTime() - offsetMinutes * 60_000;
  return time >= EARLIEST && time <= LATEST ? new Date(time) : undefined;
}
