import type { TriggerRule, WorkflowDefinition, WorkflowEdge, WorkflowNode } from '@openwop/contracts';
import { setOwn } from '@openwop/kernel';
import { entryOf, withEntry, withItem, withoutEntry } from './draft';
import { edgeKeyOf, graphIndex, NO_INCOMING, outgoingOf } from './graph-index';
import type { NodeOutputs } from './node';
import type { EdgeSignal, NodeOutcome, RunRecord } from './run.state';

/**
 * Graph scheduling by edge signals. When a node's visit ends, each outgoing edge gets a signal from
 * its trigger rule and the source's outcome; a target runs once its collected signals satisfy its
 * incoming edges, and a visit consumes them (so a loop back over an `any_*` edge runs the target
 * again). Edges with `all_*`/`none_failed` rules must all fire; of the `any_*` edges one must.
 */

/** The key an edge's signal is stored under. */
export function edgeKey(edge: WorkflowEdge, index: number): string {
  return edgeKeyOf(edge, index);
}

/** Nodes without incoming edges, in declaration order: a run starts with them. */
export function entryNodes(workflow: WorkflowDefinition): string[] {
  const targets = new Set(workflow.edges.map((e) => e.targetNodeId));
  return workflow.nodes.filter((n) => !targets.has(n.id)).map((n) => n.id);
}

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
  return outgoingOf(workflow, nodeId).some(({ edge }) => edgeSignal(edge.triggerRule, 'failed') === 'fire');
}

type Schedule = Pick<RunRecord, 'workflow' | 'signals' | 'queue' | 'visits' | 'nodeOutcomes'>;

/**
 * Signals the outgoing edges of `sourceId` after a visit ended with `outcome`; queues targets that
 * became decidable. Costs the source's outgoing edges and each target's incoming ones (graph index),
 * never the whole graph; inside an event writer the maps are changed in place (see `draft.ts`).
 */
export function propagate(
  s: Schedule,
  sourceId: string,
  outcome: NodeOutcome,
): Pick<RunRecord, 'signals' | 'queue'> {
  let signals = s.signals;
  let queue = s.queue;
  const edges = outgoingOf(s.workflow, sourceId);
  // A wide fan-out asks "already queued?" once per edge: a set answers it without scanning the queue each time.
  const queued = edges.length > 8 ? new Set(queue.map((q) => q.nodeId)) : undefined;
  const isQueued = (id: string) => (queued ? queued.has(id) : queue.some((q) => q.nodeId === id));
  for (const { edge, key } of edges) {
    const target = edge.targetNodeId;
    const got = signalInto(
      s.workflow,
      target,
      entryOf(signals, target),
      key,
      edgeSignal(edge.triggerRule, outcome),
    );
    signals = withEntry(signals, target, got);
    const verdict = activation(s.workflow, target, got);
    if (verdict === 'wait' || isQueued(target)) continue;
    if (verdict === 'run') {
      queue = withItem(queue, { nodeId: target, action: 'run' });
      queued?.add(target);
    } else if ((entryOf(s.visits, target) ?? 0) === 0 && entryOf(s.nodeOutcomes, target) === undefined) {
      // A node is recorded skipped at most once and only if it never ran: this stops skips from
      // circling a loop. A visited node just forgets the signals that could not start it.
      queue = withItem(queue, { nodeId: target, action: 'skip' });
      queued?.add(target);
    } else signals = withoutEntry(signals, target);
  }
  return { signals, queue };
}

/** How many of a target's incoming `all` and `any` edges fired and blocked, in one signals map. */
interface SignalCounts {
  allFired: number;
  allBlocked: number;
  anyFired: number;
  anyBlocked: number;
}

/**
 * Counts by signals map. A map is changed only by {@link signalInto} (in place inside an event
 * writer, which updates its counts too) and otherwise copied, so the counts kept for a map object
 * always describe it: a fan-in of n edges costs O(n) over the whole run instead of O(n) per signal.
 */
const counted = new WeakMap<object, SignalCounts>();

function countsOf(
  workflow: WorkflowDefinition,
  target: string,
  got: Readonly<Record<string, EdgeSignal>>,
): SignalCounts {
  const known = counted.get(got);
  if (known) return known;
  const { all, any } = graphIndex(workflow).incoming.get(target) ?? NO_INCOMING;
  const counts: SignalCounts = { allFired: 0, allBlocked: 0, anyFired: 0, anyBlocked: 0 };
  for (const k of all) tally(counts, 'all', entryOf(got, k), 1);
  for (const k of any) tally(counts, 'any', entryOf(got, k), 1);
  counted.set(got, counts);
  return counts;
}

function tally(c: SignalCounts, rule: 'all' | 'any', signal: EdgeSignal | undefined, by: 1 | -1): void {
  if (signal === 'fire') c[rule === 'all' ? 'allFired' : 'anyFired'] += by;
  else if (signal === 'block') c[rule === 'all' ? 'allBlocked' : 'anyBlocked'] += by;
}

/** `got` (a target's signals, or none yet) with edge `key`'s signal set, its counts kept up to date. */
function signalInto(
  workflow: WorkflowDefinition,
  target: string,
  got: Readonly<Record<string, EdgeSignal>> | undefined,
  key: string,
  signal: EdgeSignal,
): Record<string, EdgeSignal> {
  const before = got ?? {};
  const counts = { ...countsOf(workflow, target, before) };
  const { all, any } = graphIndex(workflow).incoming.get(target) ?? NO_INCOMING;
  for (const [rule, keys] of [
    ['all', all],
    ['any', any],
  ] as const) {
    if (!keys.has(key)) continue;
    tally(counts, rule, entryOf(before, key), -1);
    tally(counts, rule, signal, 1);
  }
  const next = withEntry(before, key, signal);
  counted.set(next, counts);
  return next;
}

function activation(
  workflow: WorkflowDefinition,
  target: string,
  got: Readonly<Record<string, EdgeSignal>>,
): 'run' | 'skip' | 'wait' {
  const { all, any } = graphIndex(workflow).incoming.get(target) ?? NO_INCOMING;
  const c = countsOf(workflow, target, got);
  if (c.allBlocked > 0) return 'skip';
  if (any.size > 0 && c.anyBlocked === any.size) return 'skip';
  return c.allFired === all.size && (any.size === 0 || c.anyFired > 0) ? 'run' : 'wait';
}

/**
 * A node's inputs: the run inputs (a workflow variable the caller left out takes its
 * `defaultValue`), overlaid with the outputs of its succeeded upstream nodes (edge order), then its
 * own `inputs` ports (`static` values, `variable` run inputs, `connection` outputs).
 */
export function nodeInputs(
  workflow: WorkflowDefinition,
  node: WorkflowNode,
  callerInputs: Record<string, unknown>,
  outputs: Readonly<Record<string, NodeOutputs>>,
  outcomes: Readonly<Record<string, NodeOutcome>>,
): Record<string, unknown> {
  const runInputs = withVariableDefaults(workflow, callerInputs);
  const merged: Record<string, unknown> = { ...runInputs };
  for (const e of graphIndex(workflow).sources.get(node.id) ?? []) {
    if (outcomes[e.sourceNodeId] === 'succeeded') Object.assign(merged, outputs[e.sourceNodeId]);
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

/**
 * The run inputs with each declared workflow variable (`variables[]`) the caller did not supply set
 * to its `defaultValue`, when it has one. The recorded inputs (`run.started`) stay the caller's.
 */
export function withVariableDefaults(
  workflow: WorkflowDefinition,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  let merged: Record<string, unknown> | undefined;
  for (const v of workflow.variables ?? []) {
    const { name, defaultValue } = (v ?? {}) as { name?: unknown; defaultValue?: unknown };
    if (typeof name !== 'string' || defaultValue === undefined || Object.hasOwn(inputs, name)) continue;
    merged ??= { ...inputs };
    setOwn(merged, name, defaultValue);
  }
  return merged ?? inputs;
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
