import type { InterruptKind, RunEventType, WorkflowNode } from '@openwop/contracts';
import type { ChildRunOutcome } from './child-runs';

export type { ChildRunOutcome } from './child-runs';

/** What `ctx.startChild()` takes: the workflow the child runs and its inputs. */
export interface ChildRunRequest {
  readonly workflowId: string;
  readonly inputs?: Record<string, unknown>;
}

/** Outputs of a node: a JSON object keyed by output port. */
export type NodeOutputs = Record<string, unknown>;

/**
 * What `ctx.interrupt()` takes (`interrupt.md` §InterruptPayload). `key` is derived as
 * `${runId}:${nodeId}:${n}` when absent (n = the call's 0-based index within the node execution).
 */
export interface InterruptRequest<TData = unknown> {
  readonly kind: InterruptKind;
  readonly key?: string;
  readonly resumeSchema?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly data: TData;
  /**
   * Host extension for `conversation.exchange`: how the conversation this suspension holds opens
   * (RFC 0005 §B, RFC 0101 roster). The node stays suspended across turns; only a close resumes it.
   */
  readonly conversation?: ConversationOpening;
  /**
   * Host extensions the interrupt service holds with the interrupt's data but that the wire's
   * `data` of this kind does not allow (ADR 0034): a clarification's or a custom interrupt's
   * `approversList`, `approverPolicy` and `escalation`. Never in `interrupt.requested`.
   */
  readonly hostData?: Record<string, unknown>;
}

/** The opening of a conversation suspension (see {@link InterruptRequest.conversation}). */
export interface ConversationOpening {
  /** The driving agent (`conversation.opened.agentId`). */
  readonly agentId?: string;
  /** RFC 0101 roster: `{agentId, name?}` of each agent allowed to speak. */
  readonly participants?: readonly { readonly agentId: string; readonly name?: string }[];
  /** JSON Schema of the `content` of later caller turns. */
  readonly turnSchema?: Record<string, unknown>;
  /** Nobody speaking for this long records an audit event (`log.appended`, `conversation.silence`); the talk goes on. */
  readonly maxSilenceMs?: number;
  /** Turn 0; absent ⇒ a `system` turn `{reason: 'opened'}`. */
  readonly initialTurn?: {
    readonly from: string;
    readonly role: 'user' | 'agent' | 'system';
    readonly content: unknown;
    readonly speakerId?: string;
  };
}

/**
 * What `ctx.suspend()` takes: the v1 pack ecosystem's spelling of {@link InterruptRequest}, with the
 * aliases `reason` → `kind`, `resumeKey` → `key`, `answerSchema` → `resumeSchema`. Canonical names
 * are accepted too; where both are given the canonical one wins.
 */
export interface SuspendRequest<TData = unknown> {
  readonly reason?: InterruptKind;
  readonly kind?: InterruptKind;
  readonly resumeKey?: string;
  readonly key?: string;
  readonly answerSchema?: Record<string, unknown>;
  readonly resumeSchema?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly data: TData;
}

/** Run event types a node may add to the run log through {@link NodeContext.emit}. */
export const NODE_EMITTABLE_EVENTS = [
  'agent.decided',
  'log.appended',
  'artifact.created',
  'output.chunk',
  'variable.changed',
  'channel.written',
] as const satisfies readonly RunEventType[];
export type NodeEmittableEvent = (typeof NODE_EMITTABLE_EVENTS)[number];

/** Run-level options a node may read (`RunOptions.configurable`, carried in `run.start` metadata). */
export interface RunConfigurable {
  /** Confidence below which agents escalate with a `low-confidence` interrupt (default 0.7). */
  readonly escalationThreshold: number;
}

/**
 * What a node's `execute` receives. A node is re-executed from the top after each resume
 * (LangGraph-style durable re-execution), so everything before an `interrupt` call runs again:
 * keep it deterministic, and emit through `ctx.emit` (which the engine de-duplicates on re-execution).
 */
export interface NodeContext<TConfig = Record<string, unknown>> {
  readonly runId: string;
  readonly nodeId: string;
  /** 0 on the node's first visit, 1 after a loop brought the run back to it, … (the RFC 0005 attempt). */
  readonly visit: number;
  /** The node's definition. */
  readonly node: WorkflowNode;
  /** `node.config`, or `{}`. */
  readonly config: TConfig;
  /** Run inputs, overlaid with the outputs of the upstream nodes that triggered this one, then the node's own `inputs`. */
  readonly inputs: Record<string, unknown>;
  readonly configurable: RunConfigurable;
  /**
   * Pauses the run until an external caller resolves the interrupt, and returns the resume value.
   * On re-execution the call with the same key returns the recorded value at once and no new
   * `interrupt.requested` is emitted (`interrupt.md` §Replay determinism).
   *
   * Do not wrap it in a `try/catch` that swallows every error: the pause travels as an exception.
   * (The engine notices a swallowed pause and suspends the node anyway.)
   *
   * @throws {@link InterruptTimeoutError} when the interrupt's `timeoutMs` elapsed unresolved.
   * @throws {@link InterruptCancelledError} when the run was cancelled while suspended.
   * @throws {@link NodeError} `validation_error` when the payload breaks its kind's `data` shape.
   * @example
   * const answer = await ctx.interrupt<{ answers: Record<string, string> }>({
   *   kind: 'clarification',
   *   data: { questions: [{ id: 'q1', question: 'Which colour?' }] },
   * });
   */
  interrupt<TResume = unknown>(payload: InterruptRequest): Promise<TResume>;
  /**
   * Alias of {@link NodeContext.interrupt} taking the aliased field names (`reason`, `resumeKey`,
   * `answerSchema`); identical semantics, including the key-based replay short-circuit.
   */
  suspend<TResume = unknown>(payload: SuspendRequest): Promise<TResume>;
  /**
   * Waits `delayMs` on a durable timer (held in Postgres, so it survives any process), then returns.
   * The run stays `running` meanwhile; the node is re-executed from the top when the timer fires, and
   * this call then returns at once (the firing is a keyed result, replayed like an interrupt's answer).
   * Like {@link NodeContext.interrupt}, the wait travels as an exception: do not swallow it.
   *
   * @throws {@link NodeError} `validation_error` unless `delayMs` is an integer from 0 to `MAX_DELAY_MS`.
   */
  sleep(delayMs: number): Promise<void>;
  /**
   * Starts a child run of `workflowId` (same tenant) with `inputs` and waits until it ends, then
   * returns how it ended. The parent stays `running` meanwhile (it shows the child's `waiting-*`
   * while the child waits on an interrupt); cancelling the parent cancels the child. The child's
   * run id is derived from this call, and like an interrupt the wait travels as an exception:
   * do not swallow it.
   *
   * @throws {@link InterruptCancelledError} when the run was cancelled while it waited on the child.
   */
  startChild(request: ChildRunRequest): Promise<ChildRunOutcome>;
  /** Appends a node-scoped event to the run log; on re-execution, events already written are not written again. */
  emit(type: NodeEmittableEvent, payload: Record<string, unknown>): void;
}

/** A node type: its typeId and what executing one of its nodes does. */
export interface NodeModule<TConfig = Record<string, unknown>> {
  readonly typeId: string;
  /**
   * Runtime capability ids the node needs from the host. The engine refuses to execute it while the
   * host provides any of them not ({@link HOST_PROVIDED_CAPABILITIES}): the node fails with
   * `capability_not_provided`, naming the capability, before `execute` is called.
   */
  readonly requires?: readonly string[];
  /** Returns the node's outputs, or throws (a {@link NodeError} fails the node with its code). */
  execute(ctx: NodeContext<TConfig>): Promise<NodeOutputs>;
}

/**
 * Declares a node type.
 *
 * @example
 * export const greetNode = defineNode({
 *   typeId: 'vendor.acme.greet',
 *   async execute(ctx) {
 *     const ok = await ctx.interrupt<{ action: string }>({ kind: 'approval', data: { ... } });
 *     return { greeted: ok.action === 'accept' };
 *   },
 * });
 */
export function defineNode<TConfig = Record<string, unknown>>(
  module: NodeModule<TConfig>,
): NodeModule<TConfig> {
  return module;
}

/**
 * The runtime capabilities this host provides to nodes (`NodeModule.requires`). None yet: no host
 * service is offered by capability id.
 */
export const HOST_PROVIDED_CAPABILITIES: ReadonlySet<string> = new Set<string>();

/** A deliberate node failure: `node.failed.error` carries its code, message and details. */
export class NodeError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'NodeError';
  }
}

/** Thrown by `ctx.interrupt` when the interrupt timed out (`interrupt.md` §Primitive). */
export class InterruptTimeoutError extends Error {
  constructor(
    readonly key: string,
    readonly kind: InterruptKind,
  ) {
    super(`interrupt ${key} (${kind}) timed out`);
    this.name = 'InterruptTimeoutError';
  }
}

/** Thrown by `ctx.interrupt` when the run was cancelled while the interrupt was pending. */
export class InterruptCancelledError extends Error {
  constructor(readonly key: string) {
    super(`interrupt ${key} was cancelled with its run`);
    this.name = 'InterruptCancelledError';
  }
}
