import type { TriggerRule, WorkflowDefinition, WorkflowEdge, WorkflowNode } from '@openwop/contracts';
import type { NodeOutputs } from './node';
import type { EdgeSignal, NodeOutcome, QueuedNode, RunRecord } from './run.state';

/**
 * Graph scheduling by edge signals. When a node's visit ends, each outgoing edge gets a signal from
 * its trigger rule and the source's outcome; a target runs once its collected signals satisfy its
 * incoming edges, and a visit consumes them (so a loop back over an `any_*` edge runs the target
 * again). Edges with `all_*`/`none_failed` rules must all fire; of the `any_*` edges one must.
 */

/** The key an edge's signal is stored under. */
export function edgeKey(edge: WorkflowEdge, index: number): string {
  return edge.id ?? `#${index}`;
}

/** Nodes without incoming edges, in declaration order: a run starts with them. */
export function entryNodes(workflow: WorkflowDefinition): string[] {
  const targets = new Set(workflow.edges.map((e) => e.targetNodeId));
  return workflow.nodes.filter((n) => !targets.has(n.id)).map((n) => n.id);
}

const ANY_RULES: readonly TriggerRule[] = ['any_success', 'any_failed'];

/** Whether `rule` admits a source that ended with `outcome`. */
export function edgeSignal(rule: TriggerRule | undefined, outcome: NodeOutcome): EdgeSignal {
  switch (rule ?? 'all_success') {
    case 'all_success':
    case 'any_success':
      return outcome === 'succeeded' ? 'fire' : 'block';
    case 'none_failed':
      return outcome === 'failed' ? 'block' : 'fire';
    case 'any_failed':
      return outcome === 'failed' ? 'fire' : 'block';
    case 'all_complete':
      return 'fire';
  }
}

/** Whether some outgoing edge of `nodeId` admits its failure; if none does, the failure fails the run. */
export function failureHandled(workflow: WorkflowDefinition, nodeId: string): boolean {
  return workflow.edges.some(
    (e) => e.sourceNodeId === nodeId && edgeSignal(e.triggerRule, 'failed') === 'fire',
  );
}

type Schedule = Pick<RunRecord, 'workflow' | 'signals' | 'queue' | 'visits' | 'nodeOutcomes'>;

/** Signals the outgoing edges of `sourceId` after a visit ended with `outcome`; queues targets that became decidable. */
export function propagate(
  s: Schedule,
  sourceId: string,
  outcome: NodeOutcome,
): Pick<RunRecord, 'signals' | 'queue'> {
  let signals = s.signals;
  const queue: QueuedNode[] = [...s.queue];
  s.workflow.edges.forEach((edge, i) => {
    if (edge.sourceNodeId !== sourceId) return;
    const target = edge.targetNodeId;
    signals = {
      ...signals,
      [target]: { ...signals[target], [edgeKey(edge, i)]: edgeSignal(edge.triggerRule, outcome) },
    };
    if (queue.some((q) => q.nodeId === target)) return;
    const verdict = activation(s.workflow, target, signals[target] ?? {});
    if (verdict === 'run') queue.push({ nodeId: target, action: 'run' });
    if (verdict === 'skip') {
      // A node is recorded skipped at most once and only if it never ran: this stops skips from
      // circling a loop. A visited node just forgets the signals that could not start it.
      if ((s.visits[target] ?? 0) === 0 && s.nodeOutcomes[target] === undefined)
        queue.push({ nodeId: target, action: 'skip' });
      else signals = withoutKey(signals, target);
    }
  });
  return { signals, queue };
}

function activation(
  workflow: WorkflowDefinition,
  target: string,
  got: Readonly<Record<string, EdgeSignal>>,
): 'run' | 'skip' | 'wait' {
  const incoming = workflow.edges
    .map((e, i) => ({ e, key: edgeKey(e, i) }))
    .filter(({ e }) => e.targetNodeId === target);
  const all = incoming.filter(({ e }) => !ANY_RULES.includes(e.triggerRule ?? 'all_success'));
  const any = incoming.filter(({ e }) => ANY_RULES.includes(e.triggerRule ?? 'all_success'));
  if (all.some(({ key }) => got[key] === 'block')) return 'skip';
  if (any.length > 0 && any.every(({ key }) => got[key] === 'block')) return 'skip';
  const allFired = all.every(({ key }) => got[key] === 'fire');
  const anyFired = any.length === 0 || any.some(({ key }) => got[key] === 'fire');
  return allFired && anyFired ? 'run' : 'wait';
}

function withoutKey<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const { [key]: _drop, ...rest } = record;
  return rest;
}

/**
 * A node's inputs: the run inputs, overlaid with the outputs of its succeeded upstream nodes (edge
 * order), then its own `inputs` ports (`static` values, `variable` run inputs, `connection` outputs).
 */
export function nodeInputs(
  workflow: WorkflowDefinition,
  node: WorkflowNode,
  runInputs: Record<string, unknown>,
  outputs: Readonly<Record<string, NodeOutputs>>,
  outcomes: Readonly<Record<string, NodeOutcome>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...runInputs };
  for (const e of workflow.edges) {
    if (e.targetNodeId === node.id && outcomes[e.sourceNodeId] === 'succeeded')
      Object.assign(merged, outputs[e.sourceNodeId]);
  }
  for (const [port, raw] of Object.entries(node.inputs ?? {})) {
    const v = raw as {
      type?: string;
      value?: unknown;
      variableName?: string;
      nodeId?: string;
      outputKey?: string;
    };
    if (v?.type === 'static') merged[port] = v.value;
    else if (v?.type === 'variable' && v.variableName !== undefined) merged[port] = runInputs[v.variableName];
    else if (v?.type === 'connection' && v.nodeId !== undefined && v.outputKey !== undefined) {
      merged[port] = outputs[v.nodeId]?.[v.outputKey];
    }
  }
  return merged;
}

/** The run's outputs: those of its succeeded sink nodes (no outgoing edges), in declaration order. */
export function runOutputs(
  workflow: WorkflowDefinition,
  outputs: Readonly<Record<string, NodeOutputs>>,
  outcomes: Readonly<Record<string, NodeOutcome>>,
): NodeOutputs {
  const sources = new Set(workflow.edges.map((e) => e.sourceNodeId));
  const merged: NodeOutputs = {};
  for (const n of workflow.nodes)
    if (!sources.has(n.id) && outcomes[n.id] === 'succeeded') Object.assign(merged, outputs[n.id]);
  return merged;
}
