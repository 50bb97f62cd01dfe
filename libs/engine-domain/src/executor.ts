import type { WorkflowNode } from '@openwop/contracts';
import { decisionPause } from './draft';
import type { EventWriter } from './event-writer';
import { failureHandled, nodeInputs, runOutputs } from './graph';
import { graphIndex } from './graph-index';
import { emitSuspension, type OpenInterruptRequest } from './interrupt-events';
import { emitTimerScheduled } from './timer-events';
import { emitDrainedPause } from './pause-drain';
import { emitChildStarted } from './child-runs';
import {
  HOST_PROVIDED_CAPABILITIES,
  InterruptCancelledError,
  InterruptTimeoutError,
  NodeError,
  type NodeContext,
  type NodeModule,
} from './node';
import { ChildSignal, createNodeContext, SuspendSignal, type ExecutionRecord } from './node-context';
import type { RunRecord } from './run.state';

/** The node types an engine executes, by typeId. */
export type NodeRegistry = ReadonlyMap<string, NodeModule>;

export function createNodeRegistry(modules: readonly NodeModule[]): NodeRegistry {
  return new Map(modules.map((m) => [m.typeId, m]));
}

/** `node.failed.error` / `run.failed.error`. */
export interface RunError {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;
}

/**
 * Drives the run forward from its current state until it waits or ends: (re-)executes the active
 * node if there is one, then visits queued nodes in order. Returns the interrupt it suspended on,
 * if any. `resumedKey` is the key the command just resolved: a re-execution that does not consume it
 * diverged from its first execution (`replay.diverged`). Before each visit it passes the host's
 * decision checkpoint (`setDecisionCheckpoint`), which changes no event.
 */
export async function drive(
  w: EventWriter,
  nodes: NodeRegistry,
  resumedKey?: string,
): Promise<OpenInterruptRequest | undefined> {
  let expectKey = resumedKey;
  for (;;) {
    // Between visits the host may let other work run (a wide run is thousands of visits).
    const pause = decisionPause();
    if (pause) await pause;
    const s = w.state;
    if (s.status !== 'running') return undefined;
    // Waiting on a durable timer or a child run, or paused by an operator: nothing executes until that ends.
    if (s.timer || s.child || s.paused) return undefined;
    if (s.active) {
      const opened = await executeNode(w, nodes, s.active.nodeId, expectKey);
      expectKey = undefined;
      if (opened) {
        // `node.suspended` is a terminal of the node a drain-current-node pause waited for.
        emitDrainedPause(w);
        return opened;
      }
      continue;
    }
    // The node a drain-current-node pause waited for reached a terminal: the run pauses before the next visit.
    if (s.pauseRequested) {
      emitDrainedPause(w);
      return undefined;
    }
    const next = s.queue[0];
    if (!next) {
      w.emit('run.completed', undefined, { outputs: runOutputs(s.workflow, s.nodeOutputs, s.nodeOutcomes) });
      return undefined;
    }
    if (next.action === 'skip') {
      w.emit('node.skipped', next.nodeId, { nodeId: next.nodeId, reason: 'trigger_rule_not_satisfied' });
      continue;
    }
    if (s.steps >= s.options.recursionLimit) {
      const error: RunError = {
        code: 'recursion_limit_exceeded',
        message: `run reached its recursion limit of ${s.options.recursionLimit} node executions`,
        retryable: false,
      };
      w.emit('workflow.loopback-limit', next.nodeId, {
        nodeId: next.nodeId,
        iterations: s.steps,
        limit: s.options.recursionLimit,
      });
      w.emit('run.failed', undefined, { error, failedNodeId: next.nodeId });
      return undefined;
    }
    const node = nodeById(w, next.nodeId);
    w.emit('node.started', node.id, { nodeId: node.id, typeId: node.typeId, attempt: 0 });
  }
}

async function executeNode(
  w: EventWriter,
  nodes: NodeRegistry,
  nodeId: string,
  expectKey: string | undefined,
): Promise<OpenInterruptRequest | undefined> {
  const s = w.state;
  const node = nodeById(w, nodeId);
  const module = nodes.get(node.typeId);
  if (!module) {
    fail(w, node, {
      code: 'validation_error',
      message: `node type ${node.typeId} is not supported by this host`,
      retryable: false,
    });
    return undefined;
  }
  const missing = module.requires?.find((c) => !HOST_PROVIDED_CAPABILITIES.has(c));
  if (missing !== undefined) {
    return fail(w, node, {
      code: 'capability_not_provided',
      message: `node ${node.id} (${node.typeId}) requires capability ${missing}, which this host does not provide`,
      retryable: false,
      details: { capability: missing, nodeId: node.id, typeId: node.typeId },
    });
  }
  const record: ExecutionRecord = { consumedKeys: [], emits: [] };
  const ctx = contextOf(s, node, record);
  let outputs: unknown;
  let thrown: unknown;
  let threw = false;
  try {
    outputs = await module.execute(ctx);
  } catch (e) {
    threw = true;
    thrown = e;
  }
  for (const e of record.emits) w.emit(e.type, node.id, e.payload);
  if (expectKey !== undefined && !record.consumedKeys.includes(expectKey)) {
    w.emit('replay.diverged', node.id, {
      sourceRunId: s.runId,
      atSequence: w.state.lastSequence,
      divergenceKind: 'missing',
      divergencePoint: 'interrupt.resolved',
      nodeId: node.id,
      key: expectKey,
    });
  }
  if (record.invalid) return fail(w, node, errorOf(record.invalid));
  if (record.suspended) return emitSuspension(w, node.id, record.suspended);
  if (record.timer) return emitTimerScheduled(w, node.id, record.timer);
  if (record.child) return emitChildStarted(w, node.id, record.child);
  if (threw) return fail(w, node, errorOf(thrown));
  if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs)) {
    return fail(w, node, {
      code: 'validation_error',
      message: `node ${node.id} returned outputs that are not an object`,
      retryable: false,
    });
  }
  w.emit('node.completed', node.id, { nodeId: node.id, outputs });
  return undefined;
}

/**
 * Re-executes the suspended node `nodeId` of a run being cancelled: its pending interrupt throws
 * {@link InterruptCancelledError}, answered interrupts still replay their values. Only the node's
 * emits are kept; its outcome is decided by the caller (`node.cancelled`).
 */
export async function reenterCancelled(w: EventWriter, nodes: NodeRegistry, nodeId: string): Promise<void> {
  const s = w.state;
  const node = nodeById(w, nodeId);
  const module = nodes.get(node.typeId);
  if (!module) return;
  const record: ExecutionRecord = { consumedKeys: [], emits: [] };
  const ctx = contextOf({ ...s, status: 'cancelled' }, node, record);
  try {
    await module.execute(ctx);
  } catch {
    // Expected: InterruptCancelledError, or whatever the node's clean-up threw; the node is cancelled either way.
  }
  for (const e of record.emits) w.emit(e.type, node.id, e.payload);
}

/** The context of one execution of `node` on the run's current (or cancelling) state. */
function contextOf(s: RunRecord, node: WorkflowNode, record: ExecutionRecord): NodeContext {
  return createNodeContext({
    run: s,
    node,
    visit: s.active?.visit ?? 0,
    inputs: nodeInputs(s.workflow, node, s.inputs, s.nodeOutputs, s.nodeOutcomes),
    configurable: s.options,
    alreadyEmitted: s.active?.emitted ?? 0,
    record,
  });
}

/** Fails the node; a failure no outgoing edge admits fails the run too. */
function fail(w: EventWriter, node: WorkflowNode, error: RunError): undefined {
  w.emit('node.failed', node.id, { nodeId: node.id, error, attempts: 1 });
  if (!failureHandled(w.state.workflow, node.id))
    w.emit('run.failed', undefined, { error, failedNodeId: node.id });
  return undefined;
}

function errorOf(e: unknown): RunError {
  if (e instanceof NodeError) {
    return {
      code: e.code,
      message: e.message || e.code,
      retryable: e.retryable,
      ...(e.details ? { details: e.details } : {}),
    };
  }
  if (e instanceof InterruptTimeoutError)
    return { code: 'interrupt_timeout', message: e.message, retryable: false };
  if (e instanceof InterruptCancelledError)
    return { code: 'interrupt_cancelled', message: e.message, retryable: false };
  if (e instanceof SuspendSignal || e instanceof ChildSignal)
    return { code: 'node_error', message: 'unexpected suspension', retryable: false };
  const message = e instanceof Error && e.message ? e.message : String(e) || 'node failed';
  return { code: 'node_error', message, retryable: false };
}

function nodeById(w: EventWriter, nodeId: string): WorkflowNode {
  const node = graphIndex(w.state.workflow).nodes.get(nodeId);
  if (!node) throw new Error(`run ${w.state.runId} has no node ${nodeId}`);
  return node;
}
