import { Module } from '@nestjs/common';
import { AuditLogConsumer } from './audit/audit-log.consumer';
import { RunEventsConsumer } from './run-events.consumer';

/**
 * The projector: Postgres read models built from the run event log, rebuildable from offset 0;
 * and the audit log, chained from the decisions' facts (append-only: never rebuilt).
 */
@Module({ providers: [RunEventsConsumer, AuditLogConsumer] })
export class ProjectorModule {}
