import type { DataSource, EntityManager } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';

/**
 * The header a run event carries on the bus when the decision that wrote it also applied it to the
 * projection (one process, ADR 0039): the projector's consumer of that process only tells readers.
 * Trusted only where {@link DecisionProjection} is on, i.e. where nobody outside the process can
 * publish to the run-event topic.
 */
export const PROJECTED_IN_DECISION = 'openwop-projected-in-decision';

/** A run whose projection moved in a decision: its events up to `sequence` are stored. */
export interface ProjectedInDecision {
  readonly runId: string;
  readonly sequence: number;
}

/**
 * The projector's own code, applied in the caller's transaction: stores the events and moves the
 * snapshot; returns the runs that took them (a run marked broken takes none). Throws when it cannot.
 */
export type RunEventProjector = (
  manager: EntityManager,
  events: readonly RunEventDoc[],
) => Promise<readonly ProjectedInDecision[]>;

/**
 * The audit log's writer, applied in the caller's transaction to the audit facts a decision appends
 * (the values of its `Topics.auditFacts` messages): chains them there. Throws when it cannot.
 */
export type AuditFactWriter = (manager: EntityManager, facts: readonly unknown[]) => Promise<void>;

/** Told when a decision's events could not be projected in it (they are left to the consumer). */
export type ProjectionLeftToConsumer = (events: readonly RunEventDoc[], error: unknown) => void;

/** The registry of each process's data source (the one-process host's only). */
const byDataSource = new WeakMap<DataSource, DecisionProjection>();

/** Transactions that may project: {@link transaction}'s, which take their work again without if it fails. */
const projectable = new WeakSet<EntityManager>();

/** Transactions whose decisions projected events (or chained audit facts). */
const projected = new WeakSet<EntityManager>();

/** Per transaction, the runs its decisions projected and the sequence each reached. */
const projectedRuns = new WeakMap<EntityManager, Map<string, number>>();

/** Whether a decision in the transaction of `manager` projected its events there. */
export function projectedIn(manager: EntityManager): boolean {
  return projected.has(manager);
}

/** The runs the decisions of the transaction of `manager` projected in it, each at its highest sequence. */
export function runsProjectedIn(manager: EntityManager): readonly ProjectedInDecision[] {
  return [...(projectedRuns.get(manager) ?? [])].map(([runId, sequence]) => ({ runId, sequence }));
}

/**
 * The work of the transaction of `manager` may project its decisions' events (see
 * {@link DecisionProjection.project}): its owner takes the work again, without, when that fails.
 */
export function mayProjectIn(manager: EntityManager): void {
  projectable.add(manager);
}

/**
 * The projection of a decision's events failed in its transaction, which must roll back; the
 * transaction's owner takes its work again at once with the projection left to the consumer.
 */
export class ProjectionFailedInDecision extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the projection in the decision is given up: ${reason}`, options);
    this.name = 'ProjectionFailedInDecision';
  }
}

/**
 * The one-process host's projection in the deciding transaction (ADR 0039, item "each fact written
 * once"): the projector registers its code here, and the engine applies it to the events each
 * decision appends, in the decision's transaction, so the run's snapshot commits with the decision.
 * Distributed, there is none and the projector stays a consumer of the run-event topic.
 *
 * A projection that fails in the decision never fails the decision, and costs nothing when it does
 * not fail (no savepoint): the transaction rolls back and its owner ({@link transaction}) takes the
 * same work again at once, without projecting; the events then go to the projector's consumer as
 * they did before this, which retries them, marks the run's `projectionError` or holds them behind
 * it exactly as for any event. Only transactions of {@link transaction} project: another owner
 * would not know to take its work again.
 *
 * Bound to the process's data source ({@link DecisionProjection.bind}): every decision path of the
 * engine reaches the run log with only its transaction's entity manager, whose data source is the
 * process's; the registry needs no parameter threaded through each of them.
 */
export class DecisionProjection {
  private projector: RunEventProjector | undefined;
  private leftToConsumer: ProjectionLeftToConsumer | undefined;
  private auditWriter: AuditFactWriter | undefined;

  /** The registry bound to `ds`, made at the first call: one per process's data source. */
  static bind(ds: DataSource): DecisionProjection {
    let projection = byDataSource.get(ds);
    if (!projection) {
      projection = new DecisionProjection();
      byDataSource.set(ds, projection);
    }
    return projection;
  }

  /** The registry of the data source of `manager`, if its process has one. */
  static of(manager: EntityManager): DecisionProjection | undefined {
    return byDataSource.get(manager.dataSource);
  }

  /**
   * The projector's code, one at a time per process; `onLeft` hears of each projection left to the
   * consumer. Returns the unregistering function (the projector stops: decisions project no more).
   */
  register(projector: RunEventProjector, onLeft?: ProjectionLeftToConsumer): () => void {
    if (this.projector) throw new Error('a projector already projects in this process’s decisions');
    this.projector = projector;
    this.leftToConsumer = onLeft;
    return () => {
      if (this.projector !== projector) return;
      this.projector = undefined;
      this.leftToConsumer = undefined;
    };
  }

  /**
   * The audit log's writer (ADR 0039: audit facts go into the deciding transaction), one per
   * process. Returns the unregistering function.
   */
  registerAuditWriter(writer: AuditFactWriter): () => void {
    if (this.auditWriter) throw new Error('an audit writer already writes in this process’s decisions');
    this.auditWriter = writer;
    return () => {
      if (this.auditWriter === writer) this.auditWriter = undefined;
    };
  }

  /**
   * Chains `facts` in the transaction of `manager` when its decisions may project there (the same
   * rule as {@link project}); false when they are left to the audit topic's consumer.
   * @throws ProjectionFailedInDecision when the writer failed: the transaction must roll back
   */
  async writeAudit(manager: EntityManager, facts: readonly unknown[]): Promise<boolean> {
    const writer = this.auditWriter;
    if (!writer || facts.length === 0 || !projectable.has(manager)) return false;
    try {
      await writer(manager, facts);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProjectionFailedInDecision(`its audit facts could not be chained: ${reason}`, {
        cause: error,
      });
    }
    // Its audit records are in the transaction: a failure of the statement carrying them takes the
    // work again without (transaction()'s rule for what was projected).
    projected.add(manager);
    return true;
  }

  /** Whether decisions project here: a projector registered. */
  get active(): boolean {
    return this.projector !== undefined;
  }

  /**
   * Applies `events` in the transaction of `manager`; the runs that took them. Empty when nothing
   * was applied here: no projector, a transaction that may not project (not {@link transaction}'s,
   * or its second try), or a run marked broken (the consumer holds its events).
   * @throws ProjectionFailedInDecision when the projection failed: the transaction must roll back
   */
  async project(
    manager: EntityManager,
    events: readonly RunEventDoc[],
  ): Promise<readonly ProjectedInDecision[]> {
    const projector = this.projector;
    if (!projector || events.length === 0 || !projectable.has(manager)) return [];
    try {
      const runs = await projector(manager, events);
      if (runs.length > 0) projected.add(manager);
      for (const { runId, sequence } of runs) {
        let byRun = projectedRuns.get(manager);
        if (!byRun) {
          byRun = new Map();
          projectedRuns.set(manager, byRun);
        }
        byRun.set(runId, Math.max(sequence, byRun.get(runId) ?? -1));
      }
      return runs;
    } catch (error) {
      this.leftToConsumer?.(events, error);
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProjectionFailedInDecision(`it failed: ${reason}`, { cause: error });
    }
  }
}
