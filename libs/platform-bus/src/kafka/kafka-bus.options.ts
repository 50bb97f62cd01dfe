import type { ConsumerConfig, logLevel, RetryOptions } from 'kafkajs';
import { MAX_GATHER_MS } from '../bus.port';

export interface KafkaBusOptions {
  /** Bootstrap brokers, `host:port`. See {@link brokersFromEnv}. */
  readonly brokers: readonly string[];
  /** Kafka client id (default `openwop`). */
  readonly clientId?: string;
  /** Names this instance's reply topic and reply group (default: a random UUID per bus). */
  readonly instanceId?: string;
  /** Partitions of the topics this bus creates (default 8). Reply topics have 1. */
  readonly partitions?: number;
  /** Replication factor of the topics this bus creates (default 1: the single local broker). */
  readonly replicationFactor?: number;
  /** Partitions one subscription handles at the same time (default: `partitions`). */
  readonly partitionsConsumedConcurrently?: number;
  /** kafkajs log level (default WARN). */
  readonly logLevel?: logLevel;
  /** How long `subscribe` waits for the consumer to join its group and fetch (default 30 s). */
  readonly joinTimeoutMs?: number;
  /** Period of the consumer-lag reading behind the `openwop.bus.consumer_lag` gauge (default 15 s). */
  readonly lagSampleMs?: number;
  /**
   * Handler failures that are the infrastructure's, not the message's (e.g. the database restarting):
   * retried without using up a subscription's `maxAttempts`, so an outage is waited out instead of
   * dead-lettering (see `deliverWithRetries`). The bus's own `BrokerUnreachableError` always is.
   */
  readonly isTransientFailure?: (error: unknown) => boolean;
}

/** `KAFKA_BROKERS` (comma-separated), or the local broker of `tools/kafka/kafka.sh`. */
export function brokersFromEnv(value: string | undefined = process.env['KAFKA_BROKERS']): string[] {
  const brokers = (value ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
  return brokers.length > 0 ? brokers : ['127.0.0.1:9092'];
}

/**
 * Client retries: a lost connection is retried about 6 s (0.2, 0.4, 0.8, 1.6, 3 s) before an
 * operation fails; `start()` then reports the brokers as unreachable.
 */
export const CLIENT_RETRY: RetryOptions = { initialRetryTime: 200, maxRetryTime: 3_000, retries: 5 };
export const CONNECTION_TIMEOUT_MS = 3_000;

/**
 * Consumer settings chosen for low latency on a small cluster:
 * - `maxWaitTimeInMs` 300: an idle fetch returns within 300 ms (a fetch with data returns at once,
 *   so this adds no latency), so the consumer loop, which is also where kafkajs heartbeats, turns at
 *   least 3 times a second; at 100 ms an idle stack spent a tenth of a core on empty fetches;
 * - `heartbeatInterval` 500 ms: a member learns of a rebalance (a join or leave) within ~0.6 s;
 * - `sessionTimeout` 10 s: a crashed member's partitions move after at most 10 s;
 * - `rebalanceTimeout` 10 s: how long a rebalance waits for members still finishing a message.
 * The local broker sets `group.initial.rebalance.delay.ms=0`, so a new group's first join is immediate.
 */
export const CONSUMER_TUNING: Omit<ConsumerConfig, 'groupId'> = {
  maxWaitTimeInMs: 300,
  heartbeatInterval: 500,
  sessionTimeout: 10_000,
  rebalanceTimeout: 10_000,
  allowAutoTopicCreation: false,
  retry: { ...CLIENT_RETRY, retries: 8 },
};

/**
 * The consumer settings of a subscription with `gatherMs` (`SubscribeOptions.gatherMs`): the broker
 * holds each fetch until 256 KiB arrived or `gatherMs` passed, instead of answering at the first
 * message. Capped at `MAX_GATHER_MS`, well under `heartbeatInterval` + `sessionTimeout`.
 */
export function gatherTuning(
  gatherMs: number | undefined,
): Pick<ConsumerConfig, 'maxWaitTimeInMs' | 'minBytes'> {
  if (gatherMs === undefined || !(gatherMs > 0)) return {};
  return { maxWaitTimeInMs: Math.min(Math.round(gatherMs), MAX_GATHER_MS), minBytes: GATHER_MIN_BYTES };
}

export const GATHER_MIN_BYTES = 256 * 1024;

/**
 * How long, at most, the partitions of a member that died without leaving (kill -9, power loss)
 * go unserved: its session expires after `sessionTimeout`, then the group re-joins and syncs and the
 * new owner fetches from the last committed offset (measured 0.5–1.7 s on a loaded 2-core machine by
 * `apps/e2e/src/crash-resilience.e2e.spec.ts`; 3 s allowed here). A request/reply timeout shorter
 * than this gives up on commands that are about to be decided.
 */
export const FAILOVER_BOUND_MS = (CONSUMER_TUNING.sessionTimeout ?? 10_000) + 3_000;

export const DEFAULT_JOIN_TIMEOUT_MS = 30_000;
export const HEALTH_TIMEOUT_MS = 2_000;
