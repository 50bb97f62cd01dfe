/**
 * The rows of an `UPDATE`/`DELETE … RETURNING`, which TypeORM's Postgres driver answers as
 * `[rows, count]` (a `SELECT`, or a `RETURNING` inside a CTE, comes back as the rows alone).
 */
export function returnedRows<T>(result: T[] | [T[], number]): T[] {
  return result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? result[0]
    : (result as T[]);
}
