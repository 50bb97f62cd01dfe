import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { assertRunEvent, ConsumerGroups, Topics } from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import type { RunEventFeed } from '@openwop/platform-db';
import { BUS, DATA_SOURCE, RUN_EVENT_FEED } from '@openwop/platform-nest';
import { applyRunEvent } from './run-event.projection';

/** Projects the run event log into Postgres: the event store and the run snapshots. */
@Injectable()
export class RunEventsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: ConsumerGroups.projector,
      topics: [Topics.runEvents],
      fromBeginning: true,
      handler: (m) => this.handle(m),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handle(message: IncomingMessage): Promise<void> {
    const event = assertRunEvent(message.value);
    const applied = await this.ds.transaction((manager) => applyRunEvent(manager, event));
    if (applied) await this.feed.published(event.runId, event.sequence);
  }
}
