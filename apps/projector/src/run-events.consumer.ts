import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { assertRunEvent, ConsumerGroups, Topics, upcastRunEvent, type RunEventDoc } from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import {
  isTransientDatabaseFailure,
  PROJECTED_IN_DECISION,
  ReadAhead,
  transaction,
  type DecisionProjection,
  type RunEventFeed,
} from '@openwop/platform-db';
import {
  Attr,
  countProjectionFailure,
  countProjectionHeld,
  inSpan,
  observePendingInterrupts,
} from '@openwop/observability';
import { BUS, DATA_SOURCE, DECISION_PROJECTION, RUN_EVENT_FEED } from '@openwop/platform-nest';
import { projectionErrorOf, type ProjectionError } from '@openwop/projection-domain';
import { samplePendingInterrupts } from './pending-interrupts.metrics';
import {
  applyRunEvents,
  groupByRun,
  markProjectionBroken,
  RUN_ROW_READ_AHEAD,
  type ApplyOptions,
  type ProjectedRun,
} from './run-event.projection';

/**
 * Failures of one event (alone, after its batch failed) before the run's projection is marked
 * broken; below the bus's own limit, so an event is stored or its run marked, never dead-lettered
 * silently. Transient database failures ({@link isTransientDatabaseFailure}: the database down,
 * refusing connections, or a deadlock) are not failures of the event: they are never counted here,
 * and the bus retries them for as long as the outage lasts.
 */
export const PROJECTION_ATTEMPTS = 3;

/**
 * Projects the run event log into Postgres: the event store and the run snapshots. An event is
 * stored, or its run's projection is marked broken (`projectionError`, a metric and an error log
 * naming run, event, sequence and reason) and the run's later events are held, never applied out
 * of order; `npm run projector:rebuild -- --repair` replays them once the cause is fixed. Only an
 * event that cannot be stored (its data, a contract, a bug) marks its run: while the database is
 * unavailable or refusing, the partition waits and catches up once it is back (ADR 0019).
 *
 * In one process (ADR 0039) the same code also runs in the engine's deciding transactions
 * ({@link DecisionProjection}): an event that arrives marked {@link PROJECTED_IN_DECISION} was
 * stored with its decision, so this consumer only tells the readers (the run-event feed, after that
 * commit); an event without the mark (its projection failed in the decision, or was not tried)
 * is projected here as before.
 */
@Injectable()
export class RunEventsConsumer implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunEventsConsumer.name);
  private subscription: Subscription | undefined;
  private unobserve: (() => void) | undefined;
  /** Set while this consumer's code projects in the process's decisions. */
  private unregister: (() => void) | undefined;
  /**
   * Failures of the event in retry that were its own (not transient), by topic, partition and
   * offset: the bus's `attempt` also counts the calls an outage failed.
   */
  private readonly failures = new Map<string, number>();

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
    @Optional() @Inject(DECISION_PROJECTION) private readonly inDecision: DecisionProjection | null = null,
  ) {}

  /** Before any module's bootstrap: the engine's first decisions project already. */
  onModuleInit(): void {
    const inDecision = this.inDecision;
    if (!inDecision) return;
    const unproject = inDecision.register(
      (manager, events) => this.apply(manager, events),
      (events, error) => this.leftToConsumer(events, error),
    );
    // The run's row, read by the engine decision's first statement (ADR 0039, read-ahead.ts).
    const unreadAhead = ReadAhead.register(this.ds, RUN_ROW_READ_AHEAD);
    this.unregister = () => {
      unproject();
      unreadAhead();
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    this.unobserve = observePendingInterrupts(() => samplePendingInterrupts(this.ds));
    this.subscription = await this.bus.subscribe({
      group: ConsumerGroups.projector,
      topics: [Topics.runEvents],
      fromBeginning: true,
      handler: (m) => this.handle(m),
      maxAttempts: PROJECTION_ATTEMPTS + 2,
      // The events are facts already accepted: an outage of any length delays them, and a
      // dead-lettered event would break its run at the next one (a sequence gap).
      transientBudgetMs: Infinity,
      batchHandler: (ms) => this.handleBatch(ms),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
    this.unobserve?.();
    await this.subscription?.stop();
  }

  /**
   * One event: a batch of one (the bus's fallback after a failed batch, one message at a time).
   * Failing {@link PROJECTION_ATTEMPTS} times (transient failures aside, which go back to the bus
   * to be retried), it marks its run broken instead.
   */
  async handle(message: IncomingMessage): Promise<void> {
    const key = `${message.topic}/${message.partition}/${message.offset}`;
    try {
      await this.handleBatch([message]);
      this.failures.delete(key);
      return;
    } catch (error) {
      if (isTransientDatabaseFailure(error)) throw error;
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      if (failures < PROJECTION_ATTEMPTS) throw error;
      try {
        await this.projectionFailed(assertRunEvent(message.value), error);
      } catch (markError) {
        // Marking waits out an outage like the event did (its count kept); any other failure
        // leaves the event to the bus's dead-lettering, with nothing left to count.
        if (!isTransientDatabaseFailure(markError)) this.failures.delete(key);
        throw markError;
      }
      this.failures.delete(key);
    }
  }

  /**
   * `event` cannot be stored: its run is marked broken, counted and logged. A run without a row
   * (the event precedes a stored `run.started`) has nothing to mark: the error goes back to the
   * bus, which dead-letters the event with the reason.
   */
  private async projectionFailed(event: RunEventDoc, error: unknown): Promise<void> {
    const failure = projectionErrorOf(event, error, new Date().toISOString());
    // Counted once marked (or found unmarkable): a mark an outage interrupted is tried again.
    const marked = await transaction(this.ds, (m) => markProjectionBroken(m, event.runId, failure));
    countProjectionFailure(event.type);
    const next = marked
      ? 'later events of the run are held until `npm run projector:rebuild -- --repair`'
      : 'the run has no row to mark: the event goes to the dead-letter topic';
    this.logger.error(
      `projection of run ${event.runId} is broken at event ${event.eventId} (sequence ${event.sequence}, ${event.type}): ${failure.reason}; ${next}`,
    );
    if (!marked) throw error;
  }

  /** Events of a broken run, not applied: counted and logged (one line per run and batch). */
  private held(runId: string, events: readonly RunEventDoc[], error: ProjectionError): void {
    for (const e of events) countProjectionHeld(e.type);
    const first = events[0]!.sequence;
    const last = events[events.length - 1]!.sequence;
    this.logger.warn(
      `run ${runId}: held ${events.length} event(s) (sequence ${first}..${last}) behind event ${error.eventId} ` +
        `(sequence ${error.sequence}) that the projector could not store; see the run's projectionError`,
    );
  }

  /** A decision's events could not be projected in its transaction: this consumer projects them. */
  private leftToConsumer(events: readonly RunEventDoc[], error: unknown): void {
    const first = events[0]!;
    this.logger.warn(
      `run ${first.runId}: events ${first.sequence}..${events[events.length - 1]!.sequence} not projected in their decision ` +
        `(${error instanceof Error ? error.message : String(error)}); the projector's consumer projects them`,
    );
  }

  /**
   * The waiting events of one partition in one transaction; readers hear once per run. Events a
   * decision of this process projected already (marked, see {@link PROJECTED_IN_DECISION}) are only
   * told: no transaction at all when every event of the batch is.
   */
  async handleBatch(messages: readonly IncomingMessage[]): Promise<void> {
    const told = new Map<string, number>();
    const events: RunEventDoc[] = [];
    for (const m of messages) {
      const event = upcastRunEvent(assertRunEvent(m.value));
      if (this.unregister && m.headers[PROJECTED_IN_DECISION] === '1') {
        told.set(event.runId, Math.max(event.sequence, told.get(event.runId) ?? -1));
      } else {
        events.push(event);
      }
    }
    const projected =
      events.length === 0
        ? []
        : await transaction(this.ds, (manager) =>
            this.apply(manager, events, (id, held, error) => this.held(id, held, error)),
          );
    await this.feed.publishedAll([
      ...projected,
      ...[...told].map(([runId, sequence]) => ({ runId, sequence })),
    ]);
  }

  /**
   * Applies events in the caller's transaction: this consumer's, or in one process a decision's.
   * Each run's share is one `openwop.projection.apply` span, named by the last event it applied.
   */
  private async apply(
    manager: EntityManager,
    events: readonly RunEventDoc[],
    onHeld?: ApplyOptions['onHeld'],
  ): Promise<ProjectedRun[]> {
    const moved: ProjectedRun[] = [];
    for (const [runId, runEvents] of groupByRun(events)) {
      const last = runEvents[runEvents.length - 1]!;
      const attributes = {
        [Attr.runId]: runId,
        [Attr.eventType]: last.type,
        [Attr.eventSeq]: last.sequence,
        [Attr.messagingBatchCount]: runEvents.length,
      };
      const apply = () => applyRunEvents(manager, runEvents, onHeld ? { onHeld } : {});
      moved.push(...(await inSpan('openwop.projection.apply', attributes, apply)));
    }
    return moved;
  }
}
