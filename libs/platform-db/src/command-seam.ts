import type { DataSource, EntityManager } from 'typeorm';
import { refusal, SchemaValidationError, validationRefusal, type CommandReply } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import type { DecidedThrough, DecideThrough, PreparedCommand } from './decided-through';
import type { OutboxRelay } from './outbox';
import { decideOnce } from './processed-messages';

/** A command envelope as the seam needs it: an id to decide once by, a type to route by. */
export interface SeamCommand {
  readonly id: string;
  readonly type: string;
}

/** The part of a bus message the seam reads. */
export interface SeamMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: unknown;
  /** Its record on the bus, when it came from one (the in-process bus's ordering check, ADR 0038). */
  readonly partition?: number;
  readonly offset?: string;
}

/** Why a command was set aside instead of applied (the bus's dead-letter notice). */
export interface UnappliedNotice {
  /** `exhausted`: its handler kept failing; `refused`: it was refused and nobody waits for the answer. */
  readonly cause: string;
  readonly reason: string;
  readonly attempts: number;
  /** For cause `refused`: the refusal's error code. */
  readonly code?: string;
}

/**
 * How one command type is handled. Exactly one of:
 * - `decide`: the usual path, decided once in a transaction with its effects ({@link decideOnce}:
 *   dedupe by command id, a redelivery answers the stored reply, a refusal writes nothing), then
 *   what it appended to the outbox is published before the reply;
 * - `run`: a command that needs no dedupe claim of the seam (a read, or one that decides once on
 *   its own across several transactions); with `kick`, the outbox relay is kicked afterwards.
 *
 * `shortcut` answers before either when it returns a reply (e.g. a replay-only lookup).
 * `unapplied` is told when the command was set aside (dead-lettered) instead of applied, so that
 * what it carried forward is settled (e.g. the run it would have advanced is failed).
 */
export type CommandRoute<C> = {
  readonly shortcut?: (command: C) => Promise<CommandReply | undefined>;
  readonly unapplied?: (command: C, notice: UnappliedNotice) => Promise<void>;
} & (
  | { readonly decide: (manager: EntityManager, command: C) => Promise<CommandReply>; readonly run?: never }
  | { readonly run: (command: C) => Promise<CommandReply>; readonly kick?: boolean; readonly decide?: never }
);

/** One route per command type of the union `C`. */
export type CommandRoutes<C extends SeamCommand> = {
  readonly [T in C['type']]: CommandRoute<Extract<C, { type: T }>>;
};

export interface CommandSeamOptions<C extends SeamCommand> {
  /** The consumer the dedupe records belong to (its consumer group). */
  readonly consumer: string;
  /** Validates a message's value; throws {@link SchemaValidationError} for one that breaks the contract. */
  readonly parse: (value: unknown) => C;
  readonly routes: CommandRoutes<C>;
  /** Needed when a route decides. */
  readonly ds?: DataSource;
  readonly relay?: OutboxRelay;
  /** Where refusals of malformed commands and failed `unapplied` hooks are logged. */
  readonly warn: (line: string) => void;
  /**
   * The one-process host's registry (ADR 0038), with the topic this seam serves: the seam registers
   * itself, so commands other decisions of the process send to `topic` may be decided in their
   * transaction, and its own decisions decide through the other registered seams.
   */
  readonly decidedThrough?: { readonly registry: DecidedThrough; readonly topic: string };
}

/**
 * The one way a service handles its commands: validate → shortcut → decide once (in a transaction,
 * with the dedupe record) → save → publish (outbox, after commit) → reply. Its failure rule:
 * - a refusal (a {@link DomainError} or an `ok: false` reply) is the reply, and changes nothing;
 * - a command that breaks the wire contract is refused `validation_error`;
 * - anything else throws: the bus retries it (transient failures without counting), and once the
 *   retries are spent it dead-letters it, answers the requester `command_not_applied`, and calls
 *   {@link CommandSeam.unapplied}, which hands the command to its route's `unapplied` hook.
 *
 * Nest-free: a service registers its handlers by command type and serves `handle` and `unapplied`.
 *
 * @example
 * const seam = new CommandSeam({ consumer: 'engine', parse, routes: { 'run.start': { decide: start } }, ds, relay, warn });
 * await bus.serve({ group, topic, handler: (m) => seam.handle(m), onDeadLetter: (m, n) => seam.unapplied(m, n) });
 */
export class CommandSeam<C extends SeamCommand> {
  constructor(private readonly options: CommandSeamOptions<C>) {
    const through = options.decidedThrough;
    if (through && options.ds) {
      through.registry.register(through.topic, {
        consumer: options.consumer,
        prepare: (value) => this.prepare(value),
      });
    }
  }

  async handle(message: SeamMessage): Promise<CommandReply> {
    let command: C;
    try {
      command = this.options.parse(message.value);
    } catch (e) {
      if (!(e instanceof SchemaValidationError)) throw e;
      this.options.warn(
        `refused malformed command on ${message.topic} (key ${JSON.stringify(message.key)}): ${e.message}`,
      );
      return validationRefusal(e);
    }
    const route = this.route(command);
    const early = await route.shortcut?.(command);
    if (early !== undefined) return early;
    if (route.run) {
      const reply = await refusingDomainErrors(() => route.run(command));
      if (route.kick) void this.options.relay?.kick();
      return reply;
    }
    const { ds, relay, consumer } = this.options;
    if (!ds)
      throw new Error(`CommandSeam of ${consumer}: ${command.type} decides, but no DataSource was given`);
    const decide = (manager: EntityManager) => refusingDomainErrors(() => route.decide(manager, command));
    const registry = this.options.decidedThrough?.registry;
    if (!registry) return decideOnce(ds, consumer, command.id, decide, relay);
    // Never beside a decision of this topic and key that another transaction decides through.
    const owner = {};
    const release = await registry.enter(message.topic, message.key, owner);
    try {
      const through: DecideThrough = { decided: registry, owner, root: message };
      return await decideOnce(ds, consumer, command.id, decide, relay, through);
    } finally {
      release();
    }
  }

  /**
   * The command of `value`, ready to be decided in another decision's transaction (ADR 0038), or
   * undefined when it must go through the bus: not a valid command, or a type whose route does not
   * simply decide (a `run`, or a `shortcut` that might answer instead).
   */
  private prepare(value: unknown): PreparedCommand | undefined {
    let command: C;
    try {
      command = this.options.parse(value);
    } catch {
      return undefined; // the bus refuses it, as for any malformed command
    }
    const route = this.routeOf(command);
    if (!route?.decide || route.shortcut) return undefined;
    const decide = route.decide;
    return { id: command.id, decide: (manager) => refusingDomainErrors(() => decide(manager, command)) };
  }

  /**
   * The command of `message` was set aside instead of applied: its route's `unapplied` hook settles
   * what it carried forward. A message that is not a valid command has nothing to settle.
   */
  async unapplied(message: SeamMessage, notice: UnappliedNotice): Promise<void> {
    let command: C;
    try {
      command = this.options.parse(message.value);
    } catch {
      return; // the dead letter, its metric and its log line are all there is to do
    }
    await this.route(command).unapplied?.(command, notice);
  }

  /** The route of the command's type, if there is one. */
  private routeOf(command: C): CommandRoute<C> | undefined {
    const routes = this.options.routes as unknown as Readonly<Record<string, CommandRoute<C> | undefined>>;
    return Object.hasOwn(routes, command.type) ? routes[command.type] : undefined;
  }

  private route(command: C): CommandRoute<C> {
    const route = this.routeOf(command);
    // The parser admits only routed types; a gap here is a wiring bug, retried then dead-lettered.
    if (!route) throw new Error(`CommandSeam of ${this.options.consumer}: no route for ${command.type}`);
    return route;
  }
}

/** Runs `work`; a {@link DomainError} becomes the refusal reply, anything else propagates. */
export async function refusingDomainErrors(work: () => Promise<CommandReply>): Promise<CommandReply> {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return refusal(e.code, e.message, e.details);
  }
}
