/** The parts of an OpenWOP `WorkflowDefinition` the host reads (`workflow-definition.schema.json`). */
export interface WorkflowNode {
  readonly id: string;
  readonly typeId: string;
  readonly name?: string;
  readonly config?: Record<string, unknown>;
  readonly inputs?: Record<string, unknown>;
}

export interface WorkflowEdge {
  readonly id?: string;
  readonly source: string;
  readonly target: string;
  readonly sourceHandle?: string;
  readonly targetHandle?: string;
  readonly condition?: unknown;
  readonly triggerRule?: string;
}

export interface WorkflowDefinition {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly nodes: readonly WorkflowNode[];
  readonly edges: readonly WorkflowEdge[];
  readonly triggers?: readonly unknown[];
  readonly variables?: readonly unknown[];
  readonly metadata?: Record<string, unknown>;
  readonly settings?: Record<string, unknown>;
}

/**
 * Node typeIds this host executes today. Workflows using any other typeId are refused at
 * registration with `validation_error`, so no run can start that the engine cannot finish.
 */
export const SUPPORTED_NODE_TYPES: readonly string[] = ['core.noop'];
