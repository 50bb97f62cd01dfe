import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The run snapshot read model behind `GET /v1/runs/{runId}`. */
@Entity({ name: 'runs' })
export class RunSnapshotEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ name: 'workflow_id', type: 'text' })
  workflowId!: string;

  @Column({ type: 'text' })
  status!: string;

  @Column({ name: 'current_node_id', type: 'text', nullable: true })
  currentNodeId!: string | null;

  @Column({ name: 'last_sequence', type: 'integer' })
  lastSequence!: number;

  @Column({ type: 'jsonb' })
  snapshot!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
