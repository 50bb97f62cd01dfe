import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { FAILOVER_BOUND_MS } from '@openwop/platform-bus';

/**
 * The gateway's default wait for a command's verdict: longer than a Kafka failover, so a command
 * sent just before or after an owner's kill -9 gets its real verdict from the next owner instead of
 * a `503 unavailable` that "may still take effect" (with 10 s, equal to the session timeout, every
 * such 503 in the crash-resilience e2e had in fact taken effect 0.5–1.7 s later).
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = FAILOVER_BOUND_MS + 2_000;

/** Process configuration, read once from the environment. */
export interface HostConfig {
  readonly mode: 'embedded' | 'distributed';
  readonly instanceId: string;
  readonly kafkaBrokers: readonly string[];
  readonly kafkaPartitions: number;
  /** Prefix of every topic and consumer group (`OPENWOP_NAMESPACE`); empty for none. */
  readonly namespace: string;
  /** Undefined in embedded mode means "start PGlite". */
  readonly databaseUrl: string | undefined;
  /** PGlite data folder in embedded mode; undefined = in memory. */
  readonly dataDir: string | undefined;
  readonly host: string;
  readonly port: number;
  /** Public base URL the gateway names in links (eventsUrl, callbackUrl). */
  readonly publicUrl: string;
  /** Timeout of a command request from the gateway (`COMMAND_TIMEOUT_MS`, default {@link DEFAULT_COMMAND_TIMEOUT_MS}). */
  readonly commandTimeoutMs: number;
  /** How long command ids are remembered for dedupe (`DEDUPE_RETENTION_HOURS`, default 7 days). */
  readonly dedupeRetentionMs: number;
  /** Period of the Kafka consumer-lag reading behind the lag gauge (`KAFKA_LAG_SAMPLE_MS`, default 15 s). */
  readonly kafkaLagSampleMs: number;
  /**
   * Named prepared statements (`DATABASE_PREPARED_STATEMENTS`, `on` by default; `off` behind a
   * connection pooler in transaction mode that does not keep them, e.g. PgBouncer before 1.21).
   */
  readonly preparedStatements: boolean;
  /**
   * Connections per process (`DATABASE_POOL_SIZE`, default 10). Size it so that every process of
   * every service together stays under the server's `max_connections` (100 by default): instances ×
   * services × this, plus the operator's own sessions.
   */
  readonly databasePoolSize: number;
  /**
   * One-process host only (`DECIDE_THROUGH`, `on` by default): a command one module's decision sends
   * to another module's command topic is decided in the same transaction (ADR 0038). `off` sends it
   * through the outbox and the in-process bus, as the distributed stack does.
   */
  readonly decideThrough: boolean;
}

export function readHostConfig(mode: HostConfig['mode'], env: NodeJS.ProcessEnv = process.env): HostConfig {
  const port = intFrom(env.PORT, 8080, 'PORT');
  const host = env.HOST ?? '127.0.0.1';
  return {
    mode,
    instanceId: env.INSTANCE_ID ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    kafkaBrokers: (env.KAFKA_BROKERS ?? '127.0.0.1:9092')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    kafkaPartitions: intFrom(env.KAFKA_PARTITIONS, 8, 'KAFKA_PARTITIONS'),
    namespace: env.OPENWOP_NAMESPACE ?? '',
    databaseUrl:
      env.DATABASE_URL || (mode === 'distributed' ? 'postgres://postgres@127.0.0.1:5432/openwop' : undefined),
    dataDir:
      env.OPENWOP_DATA_DIR === 'memory' ? undefined : (env.OPENWOP_DATA_DIR ?? '.infra/embedded/pgdata'),
    host,
    port,
    publicUrl: env.PUBLIC_URL ?? `http://${host}:${port}`,
    commandTimeoutMs: intFrom(env.COMMAND_TIMEOUT_MS, DEFAULT_COMMAND_TIMEOUT_MS, 'COMMAND_TIMEOUT_MS'),
    dedupeRetentionMs: intFrom(env.DEDUPE_RETENTION_HOURS, 168, 'DEDUPE_RETENTION_HOURS') * 3_600_000,
    kafkaLagSampleMs: intFrom(env.KAFKA_LAG_SAMPLE_MS, 15_000, 'KAFKA_LAG_SAMPLE_MS'),
    preparedStatements: onOff(env.DATABASE_PREPARED_STATEMENTS, true, 'DATABASE_PREPARED_STATEMENTS'),
    databasePoolSize: poolSize(env.DATABASE_POOL_SIZE),
    decideThrough: onOff(env.DECIDE_THROUGH, true, 'DECIDE_THROUGH'),
  };
}

function poolSize(raw: string | undefined): number {
  const n = intFrom(raw, 10, 'DATABASE_POOL_SIZE');
  if (n < 1) throw new Error(`DATABASE_POOL_SIZE must be at least 1, got ${raw}`);
  return n;
}

function onOff(raw: string | undefined, fallback: boolean, name: string): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new Error(`${name} must be on or off, got ${raw}`);
}

function intFrom(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return n;
}
