import type { TriggerRule, WorkflowDefinition, WorkflowEdge, WorkflowNode } from '@openwop/contracts';

/** One edge with its signal key (`edge.id`, else `#<index>`). */
export interface IndexedEdge {
  readonly edge: WorkflowEdge;
  readonly key: string;
}

/**
 * A workflow's graph by node: what the scheduler asks on every step (a node by id, a node's
 * outgoing and incoming edges) answered without scanning every edge. Built once per definition
 * object and kept while the definition is (a run pins its definition, so one run builds it once per
 * command), so a step costs what the node's own edges cost, not what the whole graph costs.
 */
export interface GraphIndex {
  readonly nodes: ReadonlyMap<string, WorkflowNode>;
  readonly outgoing: ReadonlyMap<string, readonly IndexedEdge[]>;
  /** Incoming edge keys by target, split by rule: every `all` edge must fire, one of the `any` edges. */
  readonly incoming: ReadonlyMap<string, IncomingKeys>;
  /** Incoming edges by target, in declaration order (whose succeeded sources feed the node's inputs). */
  readonly sources: ReadonlyMap<string, readonly WorkflowEdge[]>;
}

/** A target's incoming edge keys (distinct) by rule. */
export interface IncomingKeys {
  readonly all: ReadonlySet<string>;
  readonly any: ReadonlySet<string>;
}

export const NO_INCOMING: IncomingKeys = { all: new Set(), any: new Set() };

const ANY_RULES: readonly (TriggerRule | undefined)[] = ['any_success', 'any_failed'];
const NONE: readonly never[] = [];
const indexes = new WeakMap<WorkflowDefinition, GraphIndex>();

/** The edge's signal key. */
export function edgeKeyOf(edge: WorkflowEdge, index: number): string {
  return edge.id ?? `#${index}`;
}

export function graphIndex(workflow: WorkflowDefinition): GraphIndex {
  const known = indexes.get(workflow);
  if (known) return known;
  const nodes = new Map<string, WorkflowNode>();
  // The first node of an id wins, as `nodes.find` did (registration refuses duplicates anyway).
  for (const n of workflow.nodes) if (!nodes.has(n.id)) nodes.set(n.id, n);
  const outgoing = new Map<string, IndexedEdge[]>();
  const incoming = new Map<string, { all: Set<string>; any: Set<string> }>();
  const sources = new Map<string, WorkflowEdge[]>();
  workflow.edges.forEach((edge, i) => {
    const key = edgeKeyOf(edge, i);
    push(outgoing, edge.sourceNodeId, { edge, key });
    push(sources, edge.targetNodeId, edge);
    let rules = incoming.get(edge.targetNodeId);
    if (!rules) incoming.set(edge.targetNodeId, (rules = { all: new Set(), any: new Set() }));
    (ANY_RULES.includes(edge.triggerRule ?? 'all_success') ? rules.any : rules.all).add(key);
  });
  const index: GraphIndex = { nodes, outgoing, incoming, sources };
  indexes.set(workflow, index);
  return index;
}

export function outgoingOf(workflow: WorkflowDefinition, nodeId: string): readonly IndexedEdge[] {
  return graphIndex(workflow).outgoing.get(nodeId) ?? NONE;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
