import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SEEDED_FIXTURES, type WorkflowDefinition } from '@openwop/contracts';
import { loadWorkflowDirectory } from './workflows/workflow-directory.loader';

/**
 * The workflows the engine runs. Global ones are seeded at boot: the conformance fixtures it
 * supports, plus the definitions in `WORKFLOWS_DIR` (JSON or YAML) when set. Tenant ones live in the
 * `workflows` table (`workflow.register`) and shadow a global one of the same id for their tenant.
 */
@Injectable()
export class WorkflowRegistry implements OnModuleInit {
  private readonly logger = new Logger(WorkflowRegistry.name);
  private readonly global = new Map<string, WorkflowDefinition>(SEEDED_FIXTURES.map((w) => [w.id, w]));

  constructor(private readonly workflowsDir: string | undefined = process.env.WORKFLOWS_DIR) {}

  async onModuleInit(): Promise<void> {
    if (!this.workflowsDir) return;
    const loaded = await loadWorkflowDirectory(this.workflowsDir);
    for (const w of loaded) this.global.set(w.id, w);
    this.logger.log(`seeded ${loaded.length} workflow(s) from ${this.workflowsDir}`);
  }

  /** A global (seeded) workflow. */
  get(id: string): WorkflowDefinition | undefined {
    return this.global.get(id);
  }

  /** Ids of the global workflows. */
  ids(): string[] {
    return [...this.global.keys()];
  }

  /** The workflow `id` as `tenant` sees it: its own registration first, then the global one. */
  async find(manager: EntityManager, tenant: string, id: string): Promise<WorkflowDefinition | undefined> {
    const rows = await manager.query<{ definition: WorkflowDefinition }[]>(
      'SELECT definition FROM workflows WHERE tenant = $1 AND workflow_id = $2',
      [tenant, id],
    );
    return rows[0]?.definition ?? this.global.get(id);
  }

  /** The workflow `id` as a tenant sees it, given its own registration (`registered`), if any. */
  resolve(registered: WorkflowDefinition | undefined, id: string): WorkflowDefinition | undefined {
    return registered ?? this.global.get(id);
  }

  /** Adds or replaces `tenant`'s workflow of the definition's id. */
  async save(manager: EntityManager, tenant: string, definition: WorkflowDefinition): Promise<void> {
    await manager.query(
      `INSERT INTO workflows (tenant, workflow_id, definition, version) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (tenant, workflow_id) DO UPDATE SET definition = EXCLUDED.definition, version = EXCLUDED.version, updated_at = now()`,
      [tenant, definition.id, JSON.stringify(definition), definition.version],
    );
  }
}
