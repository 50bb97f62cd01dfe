import type { EntityManager } from 'typeorm';
import { Headers, type CommandReply } from '@openwop/contracts';
import { heldAppendsOf, type OutboxMessage } from './outbox';

/** A command a local seam will decide inside another decision's transaction. */
export interface PreparedCommand {
  readonly id: string;
  readonly decide: (manager: EntityManager) => Promise<CommandReply>;
}

/** A command topic's seam, as {@link DecidedThrough} sees it. */
export interface LocalDecider {
  /** The consumer its dedupe records belong to. */
  readonly consumer: string;
  /** The command of `value` ready to decide, or undefined when it is not decided through (see ADR 0038). */
  prepare(value: unknown): PreparedCommand | undefined;
}

/** Where a message handled by a seam came from: its topic and key, and its record on the in-process bus. */
export interface RootMessage {
  readonly topic: string;
  readonly key: string;
  readonly partition?: number;
  readonly offset?: string;
}

/** Messages of `topic` with `key` on the process's bus that some group has not settled, `except` left out. */
export type Unsettled = (
  topic: string,
  key: string,
  except?: { readonly partition: number; readonly offset: number },
) => number;

/** Most commands one transaction decides through, besides its own. */
export const MAX_DECIDED_THROUGH = 8;

interface Hold {
  readonly owner: object;
  readonly freed: Promise<void>;
  readonly free: () => void;
}

/**
 * ADR 0038: in the one-process host, the command seams of the process by topic, so that a command a
 * decision sends to one of them is decided in the same transaction ("decided through") instead of
 * going through the outbox and the bus. Also a process-local lock per (topic, key): a seam handling
 * a message from the bus takes it ({@link enter}, waiting), a chained decision only tries it
 * ({@link tryHold}), so the two never decide the same topic and key at once.
 */
export class DecidedThrough {
  private readonly deciders = new Map<string, LocalDecider>();
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly unsettledOnBus: Unsettled) {}

  register(topic: string, decider: LocalDecider): void {
    this.deciders.set(topic, decider);
  }

  decider(topic: string): LocalDecider | undefined {
    return this.deciders.get(topic);
  }

  /** Whether the bus holds an unsettled message of `topic` with `key` other than `root` itself. */
  unsettled(topic: string, key: string, root?: RootMessage): boolean {
    const except =
      root && root.topic === topic && root.partition !== undefined && root.offset !== undefined
        ? { partition: root.partition, offset: Number(root.offset) }
        : undefined;
    return this.unsettledOnBus(topic, key, except) > 0;
  }

  /** Takes (topic, key) for `owner`, waiting while someone else holds it; returns the release. */
  async enter(topic: string, key: string, owner: object): Promise<() => void> {
    const k = holdKey(topic, key);
    for (let held = this.holds.get(k); held; held = this.holds.get(k)) {
      if (held.owner === owner) return () => undefined;
      await held.freed;
    }
    return this.take(k, owner);
  }

  /** Takes (topic, key) for `owner` if free (or already its own); undefined when another holds it. */
  tryHold(topic: string, key: string, owner: object): (() => void) | undefined {
    const k = holdKey(topic, key);
    const held = this.holds.get(k);
    if (held) return held.owner === owner ? () => undefined : undefined;
    return this.take(k, owner);
  }

  private take(k: string, owner: object): () => void {
    let free!: () => void;
    const freed = new Promise<void>((resolve) => (free = resolve));
    const hold: Hold = { owner, freed, free };
    this.holds.set(k, hold);
    return () => {
      if (this.holds.get(k) === hold) this.holds.delete(k);
      hold.free();
    };
  }
}

function holdKey(topic: string, key: string): string {
  return `${topic}\u0000${key}`;
}

/** What one decision's transaction may decide through: the registry, and the message it handles. */
export interface DecideThrough {
  readonly decided: DecidedThrough;
  /** Holds the (topic, key) locks of the handling; the root's own lock belongs to it. */
  readonly owner: object;
  readonly root?: RootMessage;
}

/** A chained decision refused, failed, or an ordering check failed: decide again without chaining. */
export class ChainFailed extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`decided through failed: ${reason}`, options);
    this.name = 'ChainFailed';
  }
}

/** A dedupe record of a command decided through, and the message it was. */
export interface ChainedRecord {
  readonly message: OutboxMessage;
  readonly consumer: string;
  readonly messageId: string;
  readonly reply: CommandReply;
}

/**
 * Decides through, in the transaction of `manager`, the commands its held appends send to local
 * seams, in order (their own appends join the held list and are examined in turn). A decided
 * command leaves the held list; its dedupe record is returned for the closing statement. The
 * commands not decided through stay held, and so does every later one of their topic and key.
 * Throws {@link ChainFailed} when a chained decision refuses or throws. `release` collects the
 * locks taken, to free once the transaction ended.
 */
export async function decideHeldThrough(
  manager: EntityManager,
  through: DecideThrough,
  release: (() => void)[],
): Promise<ChainedRecord[]> {
  const held = heldAppendsOf(manager);
  if (!held) return [];
  const chained: ChainedRecord[] = [];
  const blocked = new Set<string>();
  for (let i = 0; i < held.length; ) {
    const message = held[i]!.message;
    const target = through.decided.decider(message.topic);
    if (!target) {
      i++;
      continue;
    }
    const k = holdKey(message.topic, message.key);
    const prepared =
      !blocked.has(k) &&
      chained.length < MAX_DECIDED_THROUGH &&
      message.headers?.[Headers.replyTo] === undefined
        ? target.prepare(JSON.parse(JSON.stringify(message.value)) as unknown)
        : undefined;
    const hold = prepared ? through.decided.tryHold(message.topic, message.key, through.owner) : undefined;
    if (hold) release.push(hold);
    if (!prepared || !hold || through.decided.unsettled(message.topic, message.key, through.root)) {
      blocked.add(k);
      i++;
      continue;
    }
    held.splice(i, 1);
    let reply: CommandReply;
    try {
      reply = await prepared.decide(manager);
    } catch (e) {
      throw new ChainFailed(`${target.consumer} threw on ${prepared.id}`, { cause: e });
    }
    if (!reply.ok) throw new ChainFailed(`${target.consumer} refused ${prepared.id} (${reply.error.code})`);
    chained.push({ message, consumer: target.consumer, messageId: prepared.id, reply });
  }
  return chained;
}
