import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { assertRunEvent, ConsumerGroups, Topics, type RunEventDoc } from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { transaction } from '@openwop/platform-db';
import { BUS, DATA_SOURCE } from '@openwop/platform-nest';
import { deliveryTargets, recordDeliveries, type DeliveryTargets } from './delivery.store';
import { DeliveryWorker } from './delivery.worker';
import { GroupedLookup } from './grouped-lookup';
import { InterruptCallbacks } from './interrupt-callbacks';
import { NOTIFIER_OPTIONS, type NotifierOptions } from './notifier.options';

/** How long a fetch of run events may wait to gather more (the added webhook latency, at most). */
export const NOTIFIER_GATHER_MS = 250;

/**
 * The notifier's consumer group on the run-event topic: partitions are shared among its instances,
 * so each event is read by one of them. It records the run's tenant and tags (from `run.started`),
 * then, in one transaction, one delivery row per matching subscription (idempotent by id), then
 * wakes the worker. The offset is committed only after both: a crash before reads the events
 * again and records nothing twice.
 */
@Injectable()
export class RunEventsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;
  /** The batches of one fetch (one per partition) look their targets up in one statement. */
  private readonly targets = new GroupedLookup<RunEventDoc, DeliveryTargets>((events) =>
    deliveryTargets(this.ds.manager, events),
  );

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(NOTIFIER_OPTIONS) private readonly options: NotifierOptions,
    private readonly worker: DeliveryWorker,
    private readonly callbacks: InterruptCallbacks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: ConsumerGroups.notifier,
      topics: [Topics.runEvents],
      // From the start: a subscription only hears events after it registered, so replaying the log
      // on a new group delivers nothing old, and no run's start is missed.
      fromBeginning: true,
      // Off every request's path: gathering a fetch's messages for a moment makes a batch (one
      // statement) of many cycles' events, so the notifier costs next to nothing per cycle while
      // no subscription matches (docs/performance-log.md, round 8).
      gatherMs: NOTIFIER_GATHER_MS,
      // An outage of any length delays the deliveries; a dead-lettered event would lose its
      // webhooks (transient failures: the bus's `isTransientFailure`).
      transientBudgetMs: Infinity,
      handler: (m) => this.handleBatch([m]),
      batchHandler: (ms) => this.handleBatch(ms),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handleBatch(messages: readonly IncomingMessage[]): Promise<void> {
    const events = messages.map((m) => assertRunEvent(m.value));
    // One statement records the starts and the runs' callbacks and finds the subscriptions and the
    // callbacks owed, for all the batches of a fetch together; a batch no subscription matches (the
    // common case) ends there, with no transaction.
    const targets = await this.targets.call(events);
    // interrupt.md §Callback delivery: recorded before the offset commits; sent off this path.
    this.callbacks.send(this.callbacks.notices(events, targets.callbacks));
    if (targets.subscriptions.length === 0) return;
    const recorded = await transaction(this.ds, (m) =>
      recordDeliveries(m, events, targets, this.options.durableRetry.maxAttempts),
    );
    if (recorded > 0) this.worker.kick();
  }
}
