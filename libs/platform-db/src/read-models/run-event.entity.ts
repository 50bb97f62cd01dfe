import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';

/** The per-run event store: one row per event, `sequence` gapless per run, `eventId` unique. */
@Entity({ name: 'run_events' })
@Unique('run_events_run_sequence', ['runId', 'sequence'])
export class RunEventEntity {
  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ type: 'integer' })
  sequence!: number;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'node_id', type: 'text', nullable: true })
  nodeId!: string | null;

  @Column({ type: 'jsonb' })
  doc!: RunEventDoc;
}
