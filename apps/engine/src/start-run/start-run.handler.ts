import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { assertRunEvent, Topics, type CommandReply, type StartRunCommand, type StartRunResult } from '@openwop/contracts';
import { decideRun, evolveRun, initialRunState, type RunState } from '@openwop/engine-domain';
import { DomainError } from '@openwop/kernel';
import { appendToOutbox } from '@openwop/platform-db';
import { WorkflowRegistry } from '../workflow-registry';

/**
 * `run.start`: decide the run's first stretch of events and commit them with the run's state and
 * the outbox rows in one transaction. A domain rejection writes nothing and is the reply.
 */
@Injectable()
export class StartRunHandler {
  constructor(private readonly workflows: WorkflowRegistry) {}

  async handle(manager: EntityManager, command: StartRunCommand): Promise<CommandReply<StartRunResult>> {
    const { runId, workflowId } = command.data;
    const workflow = this.workflows.get(workflowId);
    if (!workflow) {
      return { ok: false, error: { code: 'workflow_not_found', message: `unknown workflowId ${workflowId}`, details: { workflowId } } };
    }
    const existing = await manager.query<{ state: RunState }[]>(
      'SELECT state FROM engine_runs WHERE run_id = $1 FOR UPDATE',
      [runId],
    );
    const state = existing[0]?.state ?? initialRunState();
    let events;
    try {
      events = decideRun(
        {
          type: 'StartRun',
          runId,
          workflow,
          inputs: command.data.inputs ?? {},
          context: {
            commandId: command.id,
            now: new Date().toISOString(),
            tenant: command.actor.tenant,
            principal: command.actor.principal,
          },
        },
        state,
      );
    } catch (e) {
      if (e instanceof DomainError) return { ok: false, error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } };
      throw e;
    }
    const next = events.reduce(evolveRun, state);
    if (next.status === 'none') throw new Error('run decided no run.started');
    await manager.query(
      `INSERT INTO engine_runs (run_id, tenant, workflow_id, state, last_sequence) VALUES ($1, $2, $3, $4::jsonb, $5)`,
      [runId, command.actor.tenant, workflowId, JSON.stringify(next), next.lastSequence],
    );
    await appendToOutbox(
      manager,
      events.map((e) => ({ topic: Topics.runEvents, key: runId, value: assertRunEvent(e) })),
    );
    return { ok: true, data: { runId, status: next.status, lastSequence: next.lastSequence } };
  }
}
