import type { Bus, Subscription } from '../../bus.port';
import type { StartCrashableConsumer } from '../crashable-consumer.port';

export interface BusContractOptions {
  /** Deadline for messages the test expects (in-process: ~2 s; Kafka: ~20 s). */
  readonly deliveryTimeoutMs: number;
  /** Deadline for a killed consumer's messages to reach the next owner (Kafka: session timeout + join). */
  readonly crashRecoveryTimeoutMs: number;
  /** Starts a subscriber that can die without committing (see `kafkaCrashHarness`, `startInProcessCrashableConsumer`). */
  readonly startCrashableConsumer: StartCrashableConsumer;
  /** Jest timeout of each test (default: 3 × the larger deadline). */
  readonly testTimeoutMs?: number;
}

/** What each contract section gets: two started bus instances and subscription cleanup. */
export interface ContractContext {
  readonly options: BusContractOptions;
  readonly testTimeoutMs: number;
  /** The first bus instance. */
  bus(): Bus;
  /** A second instance of the same deployment (another process, for Kafka). */
  peer(): Bus;
  /** Stops the subscription after the test. */
  track<T extends Subscription>(subscription: T): T;
}

/** `count` distinct keys. */
export function keys(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
}

/** A sequence number carried in a test message's value. */
export function seqOf(value: unknown): number {
  if (typeof value === 'object' && value !== null && typeof (value as { seq?: unknown }).seq === 'number') {
    return (value as { seq: number }).seq;
  }
  throw new TypeError(`not a sequenced test message: ${JSON.stringify(value)}`);
}
