import type { Bus } from '../bus.port';

export interface CrashableConsumerArgs {
  readonly bus: Bus;
  readonly group: string;
  readonly topic: string;
}

/**
 * A subscriber of `group` that can die without committing, started by an adapter-specific harness.
 * It handles and commits every message, except one whose value has `block: true`: it records that
 * one and never finishes it. The contract then kills it and checks who gets the message.
 */
export interface CrashableConsumer {
  /** Values handled (and committed), in order. */
  readonly handled: readonly unknown[];
  /** The value it is stuck on, once it got a `block: true` message. */
  readonly blockedOn: unknown;
  /** Kills it (Kafka: SIGKILL of its process); resolves once it is dead. */
  kill(): Promise<void>;
}

export type StartCrashableConsumer = (args: CrashableConsumerArgs) => Promise<CrashableConsumer>;

export function isBlockRequest(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { block?: unknown }).block === true;
}
