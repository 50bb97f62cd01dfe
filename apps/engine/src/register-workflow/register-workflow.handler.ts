import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  conversationRefusal,
  validateWorkflowDefinition,
  withDefinitionDefaults,
  type CommandReply,
  type RegisterWorkflowCommand,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { WorkflowRegistry } from '../workflow-registry';

/**
 * `workflow.register`: validates the definition (the OpenWOP schema, then what this host executes)
 * and adds or replaces it for the caller's tenant. A refusal names every offending field in
 * `details.errors[].path`. Omitted presentational fields get defaults (`withDefinitionDefaults`).
 */
@Injectable()
export class RegisterWorkflowHandler {
  constructor(private readonly workflows: WorkflowRegistry) {}

  async handle(
    manager: EntityManager,
    command: RegisterWorkflowCommand,
  ): Promise<CommandReply<{ workflowId: string }>> {
    const definition = withDefinitionDefaults(command.data.definition);
    const problems = validateWorkflowDefinition(definition);
    if (problems.length) {
      const first = problems[0]!;
      return {
        ok: false,
        error: {
          code: 'validation_error',
          message: `The workflow definition is invalid: ${first.path || '/'} ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}.`,
          details: { field: first.path, errors: problems },
        },
      };
    }
    const workflow = definition as WorkflowDefinition;
    const refused = conversationRefusal(workflow);
    if (refused) return { ok: false, error: refused };
    await this.workflows.save(manager, command.actor.tenant, workflow);
    return { ok: true, data: { workflowId: workflow.id } };
  }
}
