import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the transaction that wrote an outbox row, so the relay publishes the
 * message inside the trace that caused it (the relay itself runs outside any trace). NULL when
 * tracing is off.
 */
export class OutboxTraceContext1700000000600 implements MigrationInterface {
  name = 'OutboxTraceContext1700000000600';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE outbox ADD COLUMN traceparent text, ADD COLUMN tracestate text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE outbox DROP COLUMN IF EXISTS tracestate, DROP COLUMN IF EXISTS traceparent');
  }
}
