import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { assertRunEvent, ConsumerGroups, Topics } from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { transaction, type RunEventFeed } from '@openwop/platform-db';
import { Attr, inSpan, observePendingInterrupts } from '@openwop/observability';
import { BUS, DATA_SOURCE, RUN_EVENT_FEED } from '@openwop/platform-nest';
import { samplePendingInterrupts } from './pending-interrupts.metrics';
import { applyRunEvents, groupByRun, type ProjectedRun } from './run-event.projection';

/** Projects the run event log into Postgres: the event store and the run snapshots. */
@Injectable()
export class RunEventsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;
  private unobserve: (() => void) | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.unobserve = observePendingInterrupts(() => samplePendingInterrupts(this.ds));
    this.subscription = await this.bus.subscribe({
      group: ConsumerGroups.projector,
      topics: [Topics.runEvents],
      fromBeginning: true,
      handler: (m) => this.handle(m),
      batchHandler: (ms) => this.handleBatch(ms),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unobserve?.();
    await this.subscription?.stop();
  }

  /** One event: a batch of one (the bus's fallback after a failed batch, one message at a time). */
  handle(message: IncomingMessage): Promise<void> {
    return this.handleBatch([message]);
  }

  /**
   * The waiting events of one partition in one transaction; readers hear once per run. Each run's
   * share is one `openwop.projection.apply` span, named by the last event it applied.
   */
  async handleBatch(messages: readonly IncomingMessage[]): Promise<void> {
    const events = messages.map((m) => assertRunEvent(m.value));
    const projected = await transaction(this.ds, async (manager) => {
      const moved: ProjectedRun[] = [];
      for (const [runId, runEvents] of groupByRun(events)) {
        const last = runEvents[runEvents.length - 1]!;
        const attributes = {
          [Attr.runId]: runId,
          [Attr.eventType]: last.type,
          [Attr.eventSeq]: last.sequence,
          [Attr.messagingBatchCount]: runEvents.length,
        };
        moved.push(...(await inSpan('openwop.projection.apply', attributes, () => applyRunEvents(manager, runEvents))));
      }
      return moved;
    });
    await this.feed.publishedAll(projected);
  }
}
