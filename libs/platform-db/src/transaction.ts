import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import {
  DecisionProjection,
  mayProjectIn,
  ProjectionFailedInDecision,
  projectedIn,
} from './decision-projection';
import { failedInHeldWrites, flushHeldWrites, holdWritesIn } from './held-writes';

/**
 * Runs `work` in one transaction, like `DataSource.transaction`, with one round trip less when the
 * pool's connections are in pipeline mode (the distributed mode, see `createDataSource`): BEGIN is
 * written together with the work's first statement instead of being waited for on its own. On
 * this machine a round trip costs ~0.14 ms of client CPU and ~0.05 ms of server CPU besides its
 * latency, and most of our transactions are three to six statements long.
 *
 * Elsewhere (the embedded PGlite, which serves one statement at a time) it is `ds.transaction`.
 *
 * The statements of a connection run in the order they are issued, so the work's first statement
 * runs inside the transaction; TypeORM is told a transaction is active, so a nested
 * `manager.transaction` or an entity save inside `work` uses a savepoint instead of committing ours.
 *
 * In one process, the decisions `work` takes project their events in it ({@link DecisionProjection},
 * ADR 0039). If that projection fails, the transaction rolls back and `work` runs once more, in a
 * new transaction that does not project: the decision stands, its events go to the projector's
 * consumer. `work` must be one that can be taken again (its effects are the transaction's).
 *
 * Writes that nobody reads back are held and sent together, as one statement, by the transaction's
 * closing statement or right before its COMMIT ({@link holdWritesIn}, ADR 0039).
 */
export async function transaction<T>(
  ds: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const projects = DecisionProjection.of(ds.manager)?.active === true;
  if (!projects) return transactionOnce(ds, work, false);
  try {
    return await transactionOnce(ds, work, true);
  } catch (error) {
    if (!(error instanceof ProjectionFailedInDecision)) throw error;
    return transactionOnce(ds, work, false);
  }
}

async function transactionOnce<T>(
  ds: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  project: boolean,
): Promise<T> {
  let used: EntityManager | undefined;
  try {
    const result = await inTransaction(ds, async (manager) => {
      used = manager;
      committed.set(manager, []);
      if (project) mayProjectIn(manager);
      holdWritesIn(manager);
      const done = await work(manager);
      await flushHeldWrites(manager);
      return done;
    });
    const after = used && committed.get(used);
    if (used) committed.delete(used);
    for (const f of after ?? []) f();
    return result;
  } catch (error) {
    if (used) committed.delete(used);
    // The statement that carried the held writes (the projection's among them) failed: taken again
    // without projecting, which tells a failure of the projection from one of the decision.
    if (project && used && projectedIn(used) && failedInHeldWrites(error)) {
      throw new ProjectionFailedInDecision('a statement carrying its writes failed', { cause: error });
    }
    throw error;
  }
}

/** Callbacks to run once the transaction of a manager committed ({@link afterCommit}). */
const committed = new WeakMap<EntityManager, (() => void)[]>();

/**
 * Runs `f` once the transaction of `manager` (one of {@link transaction}'s) has committed, and not
 * at all if it rolls back; outside such a transaction, on the next turn of the event loop. For a
 * process-local wake-up of whoever serves what the transaction recorded (it must still poll: the
 * process may die between the commit and `f`).
 */
export function afterCommit(manager: EntityManager, f: () => void): void {
  const list = committed.get(manager);
  if (list) list.push(f);
  else setImmediate(f);
}

async function inTransaction<T>(ds: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  if (!isPipelined(ds)) return ds.transaction(work);
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    const begun = runner.query('START TRANSACTION');
    begun.catch(() => undefined); // awaited below, after the work's first statements are on their way
    setTransactionState(runner, true);
    try {
      const result = await work(runner.manager);
      await begun;
      await runner.query('COMMIT');
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined); // the work's error is the one to raise
      throw error;
    } finally {
      setTransactionState(runner, false);
    }
  } finally {
    await runner.release();
  }
}

/** The data source's connections send statements without waiting for the previous answer. */
export function isPipelined(ds: DataSource): boolean {
  const extra = (ds.options as { extra?: { pipeline?: unknown } }).extra;
  return extra?.pipeline === true;
}

/** TypeORM's own bookkeeping of an open transaction on the runner (what `startTransaction` sets). */
function setTransactionState(runner: QueryRunner, active: boolean): void {
  Object.assign(runner, { isTransactionActive: active, transactionDepth: active ? 1 : 0 });
}

/**
 * Statements whose results the caller does not need, issued without waiting so that they travel
 * with the ones after them on a pipelined connection, then awaited together. Each is tracked from
 * the start, so a failure is never unhandled even when an awaited statement fails first.
 *
 * On a connection that is not pipelined (the embedded PGlite runs one statement at a time) each
 * statement is awaited in {@link add} instead: node-postgres would otherwise queue the next one
 * behind it, which it deprecates ("client.query() when the client is already executing a query").
 */
export class StatementBatch {
  private readonly pending: Promise<unknown>[] = [];
  private firstError: { error: unknown } | undefined;

  /** `pipelined`: the connection sends statements without waiting ({@link isPipelined}). */
  constructor(private readonly pipelined: boolean) {}

  /** A batch for the connection of `manager` (pipelined or not). */
  static for(manager: EntityManager): StatementBatch {
    return new StatementBatch(isPipelined(manager.connection));
  }

  /**
   * Issues `statement`. Pipelined: returns at once, the statement is awaited by {@link settle}.
   * Otherwise: returns once it is done, and throws its failure.
   */
  async add(statement: () => Promise<unknown>): Promise<void> {
    if (!this.pipelined) {
      await statement();
      return;
    }
    this.pending.push(
      statement().catch((error: unknown) => {
        this.firstError ??= { error };
      }),
    );
  }

  /** Waits for every statement added; throws the first failure. */
  async settle(): Promise<void> {
    await Promise.all(this.pending.splice(0));
    if (this.firstError) throw this.firstError.error;
  }

  /**
   * For a failure of an awaited statement issued after these: when one of these failed first, the
   * later one only reports the aborted transaction, so the earlier failure is the one to raise.
   */
  async rethrow(error: unknown): Promise<never> {
    await Promise.all(this.pending.splice(0));
    throw this.firstError ? this.firstError.error : error;
  }
}
