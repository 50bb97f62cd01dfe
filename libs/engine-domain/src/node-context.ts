import { isDelayMs, MAX_DELAY_MS, type WorkflowNode } from '@openwop/contracts';
import { ownValue } from '@openwop/kernel';
import { childRunIdFor, type ChildRunOutcome } from './child-runs';
import { assertInterruptPayload, fromSuspendRequest } from './interrupt-payload';
import {
  InterruptCancelledError,
  InterruptTimeoutError,
  NODE_EMITTABLE_EVENTS,
  NodeError,
  type ChildRunRequest,
  type InterruptRequest,
  type NodeContext,
  type NodeEmittableEvent,
  type RunConfigurable,
} from './node';
import type { RunRecord } from './run.state';

/** An interrupt call that must pause the node: the payload with its key settled. */
export type KeyedInterrupt = InterruptRequest & { readonly key: string };

/**
 * Thrown by `ctx.interrupt` to pause the node; the executor catches it and suspends the run.
 * @internal
 */
export class SuspendSignal extends Error {
  constructor(readonly request: KeyedInterrupt) {
    super(`node suspended on interrupt ${request.key}`);
    this.name = 'SuspendSignal';
  }
}

/** What one execution of a node did besides returning: the engine reads it after `execute` settles. */
export interface ExecutionRecord {
  /** The first interrupt that paused the node, even if the node swallowed the signal. */
  suspended?: KeyedInterrupt;
  /** The durable timer that paused the node (`ctx.sleep`), even if the node swallowed the signal. */
  timer?: { readonly key: string; readonly delayMs: number };
  /** The child run that paused the node (`ctx.startChild`), even if the node swallowed the signal. */
  child?: { readonly runId: string; readonly workflowId: string; readonly inputs: Record<string, unknown> };
  /** A malformed interrupt payload, even if the node swallowed the error. */
  invalid?: NodeError;
  /** Keys whose recorded resolution the execution consumed. */
  readonly consumedKeys: string[];
  /** Events the node emitted that are not yet in the log. */
  readonly emits: { readonly type: NodeEmittableEvent; readonly payload: Record<string, unknown> }[];
}

/**
 * Thrown by `ctx.sleep` to pause the node on a durable timer; the executor catches it and records the wait.
 * @internal
 */
export class SleepSignal extends Error {
  constructor(readonly key: string) {
    super(`node waits on timer ${key}`);
    this.name = 'SleepSignal';
  }
}

/**
 * Thrown by `ctx.startChild` to pause the node until its child run ends; the executor records the child.
 * @internal
 */
export class ChildSignal extends Error {
  constructor(readonly childRunId: string) {
    super(`node waits on child run ${childRunId}`);
    this.name = 'ChildSignal';
  }
}

/** The key of the `index`-th `ctx.sleep` of a node execution: per visit, so a loop back waits again. */
export function timerKey(runId: string, nodeId: string, visit: number, index: number): string {
  return `${runId}:${nodeId}:timer:${visit}:${index}`;
}

/**
 * The interrupt key derived for the `index`-th call of a node execution. A later visit of the same
 * node (a loop back) gets keys of its own, so it is asked again instead of replaying the first answer.
 */
export function derivedKey(runId: string, nodeId: string, visit: number, index: number): string {
  return visit === 0 ? `${runId}:${nodeId}:${index}` : `${runId}:${nodeId}:${visit}:${index}`;
}

const emittable: readonly string[] = NODE_EMITTABLE_EVENTS;

/** Builds the context of one execution of `node` in `run`, recording into `record`. */
export function createNodeContext(args: {
  readonly run: RunRecord;
  readonly node: WorkflowNode;
  readonly visit: number;
  readonly inputs: Record<string, unknown>;
  readonly configurable: RunConfigurable;
  /** Events this visit already wrote in earlier executions: the first this many emits are not written again. */
  readonly alreadyEmitted: number;
  readonly record: ExecutionRecord;
}): NodeContext {
  const { run, node, record } = args;
  let calls = 0;
  let emits = 0;
  const interrupt = async <T>(payload: InterruptRequest): Promise<T> => {
    if (record.suspended) throw new SuspendSignal(record.suspended);
    if (record.timer) throw new SleepSignal(record.timer.key);
    const index = calls++;
    try {
      assertInterruptPayload(payload);
    } catch (e) {
      if (e instanceof NodeError) record.invalid ??= e;
      throw e;
    }
    const key = payload.key ?? derivedKey(run.runId, node.id, args.visit, index);
    const resolution = ownValue(run.resolutions, key);
    if (resolution) {
      record.consumedKeys.push(key);
      if ('timeout' in resolution) throw new InterruptTimeoutError(key, payload.kind);
      return resolution.value as T;
    }
    if (run.status === 'cancelled') throw new InterruptCancelledError(key);
    record.suspended = { ...payload, key };
    throw new SuspendSignal(record.suspended);
  };
  let sleeps = 0;
  const sleep = async (delayMs: number): Promise<void> => {
    if (record.suspended) throw new SuspendSignal(record.suspended);
    if (record.timer) throw new SleepSignal(record.timer.key);
    if (!isDelayMs(delayMs)) {
      const invalid = new NodeError(
        'validation_error',
        `delayMs must be an integer from 0 to ${MAX_DELAY_MS}`,
        { delayMs },
      );
      record.invalid ??= invalid;
      throw invalid;
    }
    const key = timerKey(run.runId, node.id, args.visit, sleeps++);
    if (ownValue(run.resolutions, key)) {
      record.consumedKeys.push(key);
      return;
    }
    if (delayMs === 0) return;
    record.timer = { key, delayMs };
    throw new SleepSignal(key);
  };
  let children = 0;
  const startChild = async (request: ChildRunRequest): Promise<ChildRunOutcome> => {
    if (record.suspended) throw new SuspendSignal(record.suspended);
    if (record.timer) throw new SleepSignal(record.timer.key);
    if (record.child) throw new ChildSignal(record.child.runId);
    const runId = childRunIdFor(run.runId, node.id, args.visit, children++);
    const ended = ownValue(run.resolutions, runId);
    if (ended && 'value' in ended) {
      record.consumedKeys.push(runId);
      return ended.value as ChildRunOutcome;
    }
    if (run.status === 'cancelled') throw new InterruptCancelledError(runId);
    if (typeof request.workflowId !== 'string' || request.workflowId === '') {
      const invalid = new NodeError('validation_error', 'startChild needs a workflowId');
      record.invalid ??= invalid;
      throw invalid;
    }
    record.child = { runId, workflowId: request.workflowId, inputs: request.inputs ?? {} };
    throw new ChildSignal(runId);
  };
  return {
    runId: run.runId,
    nodeId: node.id,
    visit: args.visit,
    node,
    config: node.config ?? {},
    inputs: args.inputs,
    configurable: args.configurable,
    interrupt,
    suspend: (payload) => interrupt(fromSuspendRequest(payload)),
    sleep,
    startChild,
    emit(type, payload) {
      if (!emittable.includes(type))
        throw new NodeError('validation_error', `a node may not emit ${String(type)}`);
      if (emits++ < args.alreadyEmitted) return;
      record.emits.push({ type, payload });
    },
  };
}
