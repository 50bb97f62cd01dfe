/**
 * Postgres takes at most 65,535 bind parameters in one statement (the wire protocol counts them in
 * an unsigned 16-bit field); a statement with more is refused, whole, by the driver or the server.
 */
export const MAX_BIND_PARAMETERS = 65_535;

/**
 * Splits `rows` into consecutive chunks, in order, such that a multi-row statement of one chunk
 * binds at most `limit` parameters: `paramsPerRow` for each row plus `reserved` for the rest of the
 * statement (a CTE's own parameters, an array of keys). A batch that fits is one chunk, the same
 * array of rows, so a normal write is still one statement; only a batch past the limit is split.
 * Every writer of multi-row `VALUES` lists goes through this, so no batch size can exceed the limit.
 * @throws RangeError when not even one row fits (a statement shape that can never be written)
 */
export function chunksWithinParameterLimit<T>(
  rows: readonly T[],
  paramsPerRow: number,
  reserved = 0,
  limit = MAX_BIND_PARAMETERS,
): (readonly T[])[] {
  if (!Number.isInteger(paramsPerRow) || paramsPerRow < 1) {
    throw new RangeError(`paramsPerRow must be a positive integer, got ${paramsPerRow}`);
  }
  const perChunk = Math.floor((limit - reserved) / paramsPerRow);
  if (perChunk < 1) {
    throw new RangeError(
      `a statement of ${paramsPerRow} parameters per row and ${reserved} more exceeds ${limit}`,
    );
  }
  if (rows.length <= perChunk) return [rows];
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += perChunk) chunks.push(rows.slice(i, i + perChunk));
  return chunks;
}

/**
 * The `VALUES` tuples of `rowCount` rows of `casts.length` parameters each, numbered from
 * `$(offset + 1)`: `casts[i]` is appended to the i-th placeholder of each row (`''` or `'::jsonb'`).
 */
export function valuesTuples(rowCount: number, casts: readonly string[], offset = 0): string {
  const width = casts.length;
  const tuples: string[] = [];
  for (let r = 0; r < rowCount; r++) {
    const b = offset + r * width;
    tuples.push(`(${casts.map((cast, i) => `$${b + i + 1}${cast}`).join(', ')})`);
  }
  return tuples.join(', ');
}
