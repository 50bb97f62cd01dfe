import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { assertRunEvent, ConsumerGroups, Topics } from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { transaction } from '@openwop/platform-db';
import { BUS, DATA_SOURCE } from '@openwop/platform-nest';
import { recordDeliveries, recordRunStarts } from './delivery.store';
import { DeliveryWorker } from './delivery.worker';
import { NOTIFIER_OPTIONS, type NotifierOptions } from './notifier.options';

/**
 * The notifier's consumer group on the run-event topic: partitions are shared among its instances,
 * so each event is read by one of them. It records, in one transaction, the run's tenant and tags
 * (from `run.started`) and one delivery row per matching subscription (idempotent by id), then
 * wakes the worker. The offset is committed only after that transaction: a crash before it reads
 * the events again and records nothing twice.
 */
@Injectable()
export class RunEventsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(NOTIFIER_OPTIONS) private readonly options: NotifierOptions,
    private readonly worker: DeliveryWorker,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: ConsumerGroups.notifier,
      topics: [Topics.runEvents],
      // From the start: a subscription only hears events after it registered, so replaying the log
      // on a new group delivers nothing old, and no run's start is missed.
      fromBeginning: true,
      handler: (m) => this.handleBatch([m]),
      batchHandler: (ms) => this.handleBatch(ms),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handleBatch(messages: readonly IncomingMessage[]): Promise<void> {
    const events = messages.map((m) => assertRunEvent(m.value));
    const recorded = await transaction(this.ds, async (m) => {
      await recordRunStarts(m, events);
      return recordDeliveries(m, events, this.options.durableRetry.maxAttempts);
    });
    if (recorded > 0) this.worker.kick();
  }
}
