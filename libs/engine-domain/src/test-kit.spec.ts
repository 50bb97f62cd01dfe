/** Shared givens of the engine-domain specs (not a test file itself: jest runs `*.unit.spec.ts`). */
import {
  CONFORMANCE_FIXTURES,
  type RunEventDoc,
  type TriggerRule,
  type WorkflowDefinition,
  type WorkflowNode,
} from '@openwop/contracts';
import type { NodeRegistry } from './executor';
import { decideRun, type CommandContext, type RunDecision } from './run.decider';
import { initialRunState, type RunRecord, type RunState } from './run.state';

export const NOW = '2026-11-21T00:00:00.000Z';
export const LATER = '2026-11-21T00:05:00.000Z';

export const context = (commandId = 'c1', now = NOW): CommandContext => ({
  commandId,
  now,
  tenant: 't1',
  principal: 'p1',
});

export function workflow(
  nodes: (Partial<WorkflowNode> & { id: string })[],
  edges: [string, string, TriggerRule?][] = [],
): WorkflowDefinition {
  return {
    id: 'wf',
    name: 'wf',
    version: '1',
    nodes: nodes.map((n) => ({ typeId: 'core.noop', ...n })),
    edges: edges.map(([sourceNodeId, targetNodeId, triggerRule], i) => ({
      id: `e${i}`,
      sourceNodeId,
      targetNodeId,
      ...(triggerRule ? { triggerRule } : {}),
    })),
  };
}

export function fixture(id: string): WorkflowDefinition {
  const f = CONFORMANCE_FIXTURES.find((w) => w.id === id);
  if (!f) throw new Error(`no fixture ${id}`);
  return f;
}

export function start(
  wf: WorkflowDefinition,
  options: {
    runId?: string;
    inputs?: Record<string, unknown>;
    metadata?: Record<string, unknown>;
    nodes?: NodeRegistry;
  } = {},
): Promise<RunDecision> {
  return decideRun(
    {
      type: 'StartRun',
      runId: options.runId ?? 'r1',
      workflow: wf,
      inputs: options.inputs ?? {},
      ...(options.metadata ? { metadata: options.metadata } : {}),
      context: context(),
    },
    initialRunState(),
    options.nodes,
  );
}

export function resume(
  state: RunState,
  resumeValue: unknown,
  options: {
    interruptId?: string;
    outcome?: 'resolved' | 'timeout';
    notes?: unknown[];
    commandId?: string;
    nodes?: NodeRegistry;
  } = {},
): Promise<RunDecision> {
  const pending = (state as RunRecord).pending;
  return decideRun(
    {
      type: 'ResumeRun',
      runId: 'r1',
      interruptId: options.interruptId ?? pending?.interruptId ?? 'none',
      outcome: options.outcome ?? 'resolved',
      ...(resumeValue !== undefined ? { resumeValue } : {}),
      resolvedBy: options.outcome === 'timeout' ? 'system:timer' : 'alice',
      resolvedAt: LATER,
      ...(options.notes ? { notes: options.notes } : {}),
      context: context(options.commandId ?? 'c2', LATER),
    },
    state,
    options.nodes,
  );
}

export const types = (events: readonly RunEventDoc[]): string[] => events.map((e) => e.type);

export const payloadOf = (
  events: readonly RunEventDoc[],
  type: string,
  nodeId?: string,
): Record<string, unknown> => {
  const e = events.find((x) => x.type === type && (nodeId === undefined || x.nodeId === nodeId));
  if (!e) throw new Error(`no ${type} event${nodeId ? ` for ${nodeId}` : ''} in ${types(events).join(', ')}`);
  return e.payload as Record<string, unknown>;
};

export const record = (state: RunState): RunRecord => {
  if (state.status === 'none') throw new Error('no run');
  return state;
};
