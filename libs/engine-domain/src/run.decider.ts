import { DomainError, assertNever } from '@openwop/kernel';
import type { RunEventDoc, RunEventType, WorkflowDefinition, WorkflowNode } from '@openwop/contracts';

/** Who asked, and when: command inputs the decider must not read from the environment. */
export interface CommandContext {
  readonly commandId: string;
  /** ISO timestamp the handler took from its clock. */
  readonly now: string;
  readonly tenant: string;
  readonly principal: string;
}

export interface StartRun {
  readonly type: 'StartRun';
  readonly runId: string;
  readonly workflow: WorkflowDefinition;
  readonly inputs: Record<string, unknown>;
  readonly context: CommandContext;
}

export type RunCommand = StartRun;

export type RunStatus = 'running' | 'completed' | 'failed';

/** Run state: nothing yet, or a run with a status. */
export type RunState =
  | { readonly status: 'none' }
  | {
      readonly status: RunStatus;
      readonly runId: string;
      readonly workflowId: string;
      readonly tenant: string;
      readonly lastSequence: number;
      readonly lastEventId: string;
      readonly completedNodes: readonly string[];
    };

export const initialRunState = (): RunState => ({ status: 'none' });

/** Run already exists: the command is refused, nothing is written. */
export class RunAlreadyExists extends DomainError {
  constructor(runId: string) {
    super('run_already_exists', `run ${runId} already exists`, { runId });
  }
}

/**
 * Decides the events of a command. Node execution is part of deciding: a node whose outcome is
 * known without waiting (today: `core.noop`) runs to completion inside the same decision, so one
 * command commits the whole stretch of events up to the next wait or the end of the run.
 */
export function decideRun(command: RunCommand, state: RunState): RunEventDoc[] {
  switch (command.type) {
    case 'StartRun':
      return startRun(command, state);
    default:
      return assertNever(command.type, 'run command');
  }
}

function startRun(command: StartRun, state: RunState): RunEventDoc[] {
  if (state.status !== 'none') throw new RunAlreadyExists(command.runId);
  const out = new EventWriter(command.runId, -1, command.context.commandId, command.context.now);
  const { workflow, context } = command;
  out.emit('run.started', undefined, {
    workflowId: workflow.id,
    inputs: command.inputs,
    transport: 'rest',
    owner: { tenant: context.tenant, principal: context.principal },
  });
  for (const node of executionOrder(workflow)) executeNode(node, out);
  out.emit('run.completed', undefined, { outputs: {} });
  return out.events;
}

function executeNode(node: WorkflowNode, out: EventWriter): void {
  out.emit('node.started', node.id, { nodeId: node.id, typeId: node.typeId, attempt: 0 });
  switch (node.typeId) {
    case 'core.noop':
      out.emit('node.completed', node.id, { nodeId: node.id, outputs: {} });
      return;
    default:
      throw new DomainError('validation_error', `node type ${node.typeId} is not supported by this host`, {
        nodeId: node.id,
        typeId: node.typeId,
      });
  }
}

/** Nodes in dependency order: entry nodes first, each node after all its sources; ties by declaration order. */
export function executionOrder(workflow: WorkflowDefinition): WorkflowNode[] {
  const indegree = new Map(workflow.nodes.map((n) => [n.id, 0]));
  for (const e of workflow.edges) indegree.set(e.target, (indegree.get(e.target) ?? 0) + 1);
  const byId = new Map(workflow.nodes.map((n) => [n.id, n]));
  const ready = workflow.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  const order: WorkflowNode[] = [];
  while (ready.length) {
    const id = ready.shift()!;
    order.push(byId.get(id)!);
    for (const e of workflow.edges.filter((x) => x.source === id)) {
      const left = (indegree.get(e.target) ?? 0) - 1;
      indegree.set(e.target, left);
      if (left === 0) ready.push(e.target);
    }
  }
  if (order.length !== workflow.nodes.length) {
    throw new DomainError('validation_error', `workflow ${workflow.id} has a cycle or an edge to an unknown node`);
  }
  return order;
}

/** Stamps events with the run's next sequences, deterministic ids and a causation chain. */
class EventWriter {
  readonly events: RunEventDoc[] = [];

  constructor(
    private readonly runId: string,
    private lastSequence: number,
    private causationId: string,
    private readonly now: string,
  ) {}

  emit(type: RunEventType, nodeId: string | undefined, payload: unknown): void {
    const sequence = ++this.lastSequence;
    const eventId = runEventId(this.runId, sequence);
    this.events.push({
      eventId,
      runId: this.runId,
      ...(nodeId ? { nodeId } : {}),
      type,
      payload,
      timestamp: this.now,
      sequence,
      schemaVersion: 1,
      causationId: this.causationId,
    });
    this.causationId = eventId;
  }
}

/** Event ids are derived from run and sequence, so a re-emitted event dedupes everywhere. */
export function runEventId(runId: string, sequence: number): string {
  return `${runId}:${sequence}`;
}

/** Folds one run event into engine state. Unknown types leave state unchanged. */
export function evolveRun(state: RunState, event: RunEventDoc): RunState {
  if (event.type === 'run.started') {
    const payload = event.payload as { workflowId: string; owner?: { tenant: string } };
    return {
      status: 'running',
      runId: event.runId,
      workflowId: payload.workflowId,
      tenant: payload.owner?.tenant ?? 'default',
      lastSequence: event.sequence,
      lastEventId: event.eventId,
      completedNodes: [],
    };
  }
  if (state.status === 'none') return state;
  const base = { ...state, lastSequence: event.sequence, lastEventId: event.eventId };
  switch (event.type) {
    case 'node.completed':
      return { ...base, completedNodes: [...state.completedNodes, event.nodeId ?? ''] };
    case 'run.completed':
      return { ...base, status: 'completed' };
    case 'run.failed':
      return { ...base, status: 'failed' };
    default:
      return base;
  }
}
