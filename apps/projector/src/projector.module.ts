import { Module } from '@nestjs/common';
import { RunEventsConsumer } from './run-events.consumer';

/** The projector: Postgres read models built from the run event log, rebuildable from offset 0. */
@Module({ providers: [RunEventsConsumer] })
export class ProjectorModule {}
