import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The projector stores every event the log holds. Numbers taken from events (a turn's `ts`, an
 * interrupt's `timeoutMs`) are JSON numbers, so their columns are `double precision`, which holds
 * every one of them (an integer column refused `1e300` and the event with it). A run whose event
 * could still not be stored says so in `projection_error` (the event, the reason), and later events
 * of that run are held until the repair replay, so the read model never forks from the log.
 */
export class ProjectionTotal1700000001000 implements MigrationInterface {
  name = 'ProjectionTotal1700000001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversation_turns ALTER COLUMN ts TYPE double precision');
    await q.query('ALTER TABLE pending_interrupts ALTER COLUMN timeout_ms TYPE double precision');
    await q.query('ALTER TABLE resolution_tokens ALTER COLUMN timeout_ms TYPE double precision');
    await q.query('ALTER TABLE runs ADD COLUMN projection_error jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE runs DROP COLUMN IF EXISTS projection_error');
    await q.query('ALTER TABLE resolution_tokens ALTER COLUMN timeout_ms TYPE bigint');
    await q.query('ALTER TABLE pending_interrupts ALTER COLUMN timeout_ms TYPE integer');
    await q.query('ALTER TABLE conversation_turns ALTER COLUMN ts TYPE bigint');
  }
}
