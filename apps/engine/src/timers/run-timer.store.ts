import type { EntityManager } from 'typeorm';
import type { PendingTimer, RunRecord, RunState } from '@openwop/engine-domain';
import { DueTimes } from '@openwop/platform-db';

/** A durable timer row (`run_timers`). */
export interface RunTimerRow {
  readonly runId: string;
  readonly timerKey: string;
  readonly tenant: string;
  readonly dueAt: string;
}

/**
 * Keeps `run_timers` equal to what the run's state waits on, inside the decision's transaction: a
 * timer the decision started is armed, one it ended (fired or cancelled) is removed. So the row
 * exists exactly while the committed run waits on it, whichever process dies when.
 */
/** The due times of the run timers this process writes, told to its timer once committed. */
export const RUN_TIMER_DUE_TIMES = new DueTimes();

export async function syncRunTimer(manager: EntityManager, prior: RunState, next: RunRecord): Promise<void> {
  const before: PendingTimer | undefined = prior.status === 'none' ? undefined : prior.timer;
  const after = next.timer;
  if (before && before.key !== after?.key) {
    await manager.query('DELETE FROM run_timers WHERE run_id = $1 AND timer_key = $2', [
      next.runId,
      before.key,
    ]);
  }
  if (after && before?.key !== after.key) {
    RUN_TIMER_DUE_TIMES.wrote(manager, [after.dueAt]);
    await manager.query(
      `INSERT INTO run_timers (run_id, timer_key, tenant, due_at) VALUES ($1, $2, $3, $4::timestamptz)
       ON CONFLICT (run_id, timer_key) DO NOTHING`,
      [next.runId, after.key, next.tenant, after.dueAt],
    );
  }
}

/**
 * Claims up to `limit` timers due at `now` and deletes them, in the caller's transaction: rows
 * another transaction holds are skipped (`SKIP LOCKED`), so concurrent pollers never claim the same
 * timer; a rollback puts the rows back for the next poll.
 */
export async function claimDueTimers(
  manager: EntityManager,
  now: string,
  limit: number,
): Promise<RunTimerRow[]> {
  // A CTE, so the statement reads as a SELECT (a bare DELETE … RETURNING comes back as [rows, count]).
  const rows = await manager.query<
    { run_id: string; timer_key: string; tenant: string; due_at: Date | string }[]
  >(
    `WITH claimed AS (
       DELETE FROM run_timers WHERE (run_id, timer_key) IN (
         SELECT run_id, timer_key FROM run_timers WHERE due_at <= $1::timestamptz
         ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING run_id, timer_key, tenant, due_at)
     SELECT run_id, timer_key, tenant, due_at FROM claimed ORDER BY due_at`,
    [now, limit],
  );
  return rows.map((r) => ({
    runId: r.run_id,
    timerKey: r.timer_key,
    tenant: r.tenant,
    dueAt: new Date(r.due_at).toISOString(),
  }));
}

/** One statement, no transaction: is any timer due? Most polls find nothing and cost only this. */
export async function anyTimerDue(manager: EntityManager, now: string): Promise<boolean> {
  const [row] = await manager.query<{ due: boolean }[]>(
    'SELECT EXISTS (SELECT 1 FROM run_timers WHERE due_at <= $1::timestamptz) AS due',
    [now],
  );
  return row?.due === true;
}
