import { Injectable } from '@nestjs/common';
import { SEEDED_FIXTURES, type WorkflowDefinition } from '@openwop/contracts';

/** The workflows the engine runs: the conformance fixtures it supports, seeded at boot. */
@Injectable()
export class WorkflowRegistry {
  private readonly workflows = new Map<string, WorkflowDefinition>(SEEDED_FIXTURES.map((w) => [w.id, w]));

  get(id: string): WorkflowDefinition | undefined {
    return this.workflows.get(id);
  }

  ids(): string[] {
    return [...this.workflows.keys()];
  }
}
