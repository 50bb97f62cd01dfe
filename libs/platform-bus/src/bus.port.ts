/**
 * The message bus port. Two adapters implement it with the same guarantees:
 * Kafka (production, `KafkaBus`) and in-process (embedded mode and unit tests, `InProcessBus`).
 *
 * Guarantees every adapter keeps (pinned by the contract suite in `testing/bus.contract.ts`):
 * - per-key order: messages published with one key reach a group's handler in publish order;
 * - one owner per key within a consumer group: at any moment one subscriber of the group handles a key;
 * - at-least-once: a message is committed only after its handler resolved; what a stopped or crashed
 *   subscriber had not committed is redelivered to the group's next owner of that key;
 * - bounded retries: a handler that keeps throwing is retried `maxAttempts` times in place (the
 *   partition waits), then the message goes to the dead-letter topic with the reason in headers;
 * - nothing is dropped silently: every dead letter (a handler that kept throwing, a message that is
 *   not JSON, a refusal of a request nobody waits for) is counted (`openwop.bus.dead_letters`, by
 *   topic, group and cause), logged in one line naming the key, the message and the reason, and
 *   reported to the subscription's `onDeadLetter`;
 * - request/reply: `request` resolves with the value a `serve` handler returned, or rejects with
 *   {@link RequestTimeoutError} after `timeoutMs`. A request its handler could not handle (retries
 *   exhausted, or not JSON) is answered at once with the refusal `command_not_applied` (contracts' `notAppliedRefusal`), instead of
 *   leaving the requester to time out.
 */
export interface Bus {
  /** Connects producers; idempotent. */
  start(): Promise<void>;
  /** Stops every subscription (committing what was handled) and disconnects. */
  stop(): Promise<void>;
  /** Publishes messages in order; resolves once the broker acknowledged them all (acks=all). */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /** Joins `group` and handles messages of `topics` until the subscription stops. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Like `subscribe`, but the handler's return value is sent to the request's reply topic. */
  serve(options: ServeOptions): Promise<Subscription>;
  /** Sends a request and waits for the reply. */
  request<TReply = unknown>(
    topic: string,
    message: OutgoingMessage,
    options: RequestOptions,
  ): Promise<TReply>;
  /** True when the broker answers. */
  healthy(): Promise<boolean>;
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json | undefined };

export interface OutgoingMessage<T = unknown> {
  readonly key: string;
  readonly value: T;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface IncomingMessage<T = unknown> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly value: T;
  readonly headers: Readonly<Record<string, string>>;
  /** 1 on first delivery to this handler, then 2, 3, … on in-place retries. */
  readonly attempt: number;
}

export type MessageHandler = (message: IncomingMessage) => Promise<void>;
/** Handles consecutive messages of one partition together, in offset order. */
export type BatchHandler = (messages: readonly IncomingMessage[]) => Promise<void>;
export type RequestHandler = (message: IncomingMessage) => Promise<unknown>;

/**
 * Why a message went to the dead-letter topic:
 * - `exhausted`: its handler threw `maxAttempts` times (transient failures aside);
 * - `undecodable`: it is not JSON, so no handler could read it;
 * - `refused`: a `serve` handler answered `{ ok: false }` to a message that has no reply topic (a
 *   command sent from an outbox): nobody would ever see the refusal otherwise.
 */
export type DeadLetterCause = 'exhausted' | 'undecodable' | 'refused';

export interface DeadLetterNotice {
  readonly cause: DeadLetterCause;
  /** The error or the refusal, as written to the dead letter's reason header. */
  readonly reason: string;
  readonly attempts: number;
  /** For cause `refused`: the refusal's error code. */
  readonly code?: string;
}

/**
 * Told about each message the subscription dead-lettered, after the dead-letter copy was sent (a
 * consumer settles what the message was carrying forward here: e.g. fails the run it left stuck).
 * Must be idempotent: when it throws, the message may be delivered again.
 */
export type DeadLetterHook = (message: IncomingMessage, notice: DeadLetterNotice) => Promise<void>;

export interface SubscribeOptions {
  readonly group: string;
  readonly topics: readonly string[];
  readonly handler: MessageHandler;
  /**
   * Optional fast path: the messages of one partition that are already waiting are handed over
   * together (in offset order, at most `maxBatch`), so a consumer can apply them in one
   * transaction. It must have the same effect as `handler` on each message in turn. When it throws,
   * the same messages go to `handler` one at a time, with the usual retries and dead-lettering, so
   * one bad message still only costs itself.
   */
  readonly batchHandler?: BatchHandler;
  /** Most messages per `batchHandler` call (default {@link DEFAULT_MAX_BATCH}). */
  readonly maxBatch?: number;
  /** Attempts before dead-lettering (default 5). */
  readonly maxAttempts?: number;
  /**
   * How long, in all, one message's transient failures (the bus's `isTransientFailure`: the
   * database down or refusing) are retried before they count against `maxAttempts` (default
   * `TRANSIENT_BUDGET_MS`, 60 s: a requester is waiting). `Infinity` waits out any outage for as
   * long as this subscriber owns the partition; a stop or a lost partition leaves the message
   * uncommitted, for the next owner. For consumers that follow a log of facts already accepted
   * (the projector, the audit writer, the notifier): an outage must delay them, never dead-letter
   * a fact.
   */
  readonly transientBudgetMs?: number;
  /** Start from the earliest offset when the group has no committed offset (default false). */
  readonly fromBeginning?: boolean;
  /** Where messages go after `maxAttempts` failures (default `Topics.deadLetter`). */
  readonly deadLetterTopic?: string;
  /**
   * False for a throwaway group that nothing ever resumes (request/reply's per-process reply
   * group): its progress is never committed, which saves a broker request per batch (default true).
   */
  readonly commitOffsets?: boolean;
  /** Called after each dead letter of this subscription (see {@link DeadLetterHook}). */
  readonly onDeadLetter?: DeadLetterHook;
  /**
   * For a consumer off every request's path (webhook deliveries): a fetch may wait up to this many
   * ms to gather messages, so they arrive in fewer, larger batches (fewer fetches, fewer batch
   * statements) at the price of up to this much latency. Default: none, a fetch returns as soon as
   * a message is there. Capped at {@link MAX_GATHER_MS}. The in-process bus gathers too: a
   * member with a batch handler takes what waits in all its partitions at one shared tick.
   */
  readonly gatherMs?: number;
}

/** The longest {@link SubscribeOptions.gatherMs}: the consumer loop also sends the heartbeats. */
export const MAX_GATHER_MS = 1_000;

/** Most messages per `batchHandler` call when a subscription does not say. */
export const DEFAULT_MAX_BATCH = 200;

export interface ServeOptions {
  readonly group: string;
  readonly topic: string;
  readonly handler: RequestHandler;
  readonly maxAttempts?: number;
  /**
   * Start from the earliest offset when the group has no committed offset (default false). Set it
   * where requests also arrive from an outbox and must not be lost before the group first joins.
   */
  readonly fromBeginning?: boolean;
  /** Where requests go after `maxAttempts` failures (default `Topics.deadLetter`). */
  readonly deadLetterTopic?: string;
  /**
   * Called after each dead letter, once the requester (if any) got its refusal (see
   * {@link DeadLetterHook}).
   */
  readonly onDeadLetter?: DeadLetterHook;
}

export interface RequestOptions {
  readonly timeoutMs: number;
}

export interface Subscription {
  /** Leaves the group after the in-flight message; uncommitted messages go to the next owner. */
  stop(): Promise<void>;
}

/** `request` saw no reply within its timeout. The request may still take effect. */
export class RequestTimeoutError extends Error {
  constructor(
    readonly topic: string,
    readonly timeoutMs: number,
  ) {
    super(`no reply on ${topic} within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** DI token for the bus in Nest modules. */
export const BUS = Symbol('BUS');
