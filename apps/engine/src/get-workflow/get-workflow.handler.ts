import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, GetWorkflowCommand, WorkflowDefinition } from '@openwop/contracts';
import { WorkflowRegistry } from '../workflow-registry';

/** `workflow.get`: the definition as the caller's tenant sees it (its own, else a seeded global one), or `not_found`. */
@Injectable()
export class GetWorkflowHandler {
  constructor(private readonly workflows: WorkflowRegistry) {}

  async handle(
    manager: EntityManager,
    command: GetWorkflowCommand,
  ): Promise<CommandReply<WorkflowDefinition>> {
    const { workflowId } = command.data;
    const workflow = await this.workflows.find(manager, command.actor.tenant, workflowId);
    if (!workflow)
      return {
        ok: false,
        error: {
          code: 'not_found',
          message: `Workflow ${workflowId} does not exist.`,
          details: { workflowId },
        },
      };
    return { ok: true, data: workflow };
  }
}
