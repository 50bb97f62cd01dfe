import type { DataSource } from 'typeorm';
import { InProcessBus, KafkaBus, NamespacedBus, type Bus } from '@openwop/platform-bus';
import {
  isTransientDatabaseFailure,
  ensureDatabase,
  InProcessRunEventFeed,
  needsOwnVacuum,
  openDatabase,
  OutboxRelay,
  PeriodicVacuum,
  PgRunEventFeed,
  pruneIdempotencyRecords,
  pruneProcessedMessages,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type RunEventFeed,
  VACUUM_EVERY_MS,
} from '@openwop/platform-db';
import type { HostConfig } from './host-config';

/** How often each process prunes expired dedupe rows and Idempotency-Key records (kept 24 h). */
const PRUNE_EVERY_MS = 15 * 60_000;

/** The live adapters of one process: the bus, the database, the feed and the outbox relay. */
export interface Platform {
  readonly config: HostConfig;
  readonly bus: Bus;
  readonly dataSource: DataSource;
  readonly feed: RunEventFeed;
  readonly relay: OutboxRelay;
  close(): Promise<void>;
}

/**
 * Starts the adapters `config` asks for: Kafka + Postgres when distributed; the in-process bus and
 * PGlite (or `DATABASE_URL`) when embedded. Migrations run before anything consumes.
 */
export async function startPlatform(config: HostConfig): Promise<Platform> {
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (url) {
    await ensureDatabase(url);
  } else {
    embedded = await startEmbeddedPostgres(config.dataDir);
    url = embedded.url;
  }
  const dataSource = await openDatabase({
    url,
    // DATABASE_POOL_SIZE, except on PGlite, whose one session `embedded.driverOptions` sizes it to.
    exclusive: embedded !== undefined,
    poolSize: config.databasePoolSize,
    ...(embedded ? { driverOptions: embedded.driverOptions } : {}),
    prepareStatements: config.preparedStatements,
    applicationName: `openwop-${config.instanceId}`,
  });
  const transport: Bus =
    config.mode === 'distributed'
      ? new KafkaBus({
          brokers: [...config.kafkaBrokers],
          clientId: 'openwop',
          instanceId: config.instanceId,
          partitions: config.kafkaPartitions,
          lagSampleMs: config.kafkaLagSampleMs,
          // A Postgres restart, refusal (too many clients) or deadlock is waited out, not dead-lettered.
          isTransientFailure: isTransientDatabaseFailure,
        })
      : new InProcessBus({
          partitions: config.kafkaPartitions,
          isTransientFailure: isTransientDatabaseFailure,
        });
  const bus = config.namespace ? new NamespacedBus(transport, config.namespace) : transport;
  await bus.start();
  // The embedded host is one process, on PGlite or on `DATABASE_URL`: its projector and its gateway
  // share the feed in memory, so a notice costs no pg_notify statement and no LISTEN round trip.
  const feed: RunEventFeed =
    config.mode === 'embedded' ? new InProcessRunEventFeed() : new PgRunEventFeed(dataSource, url);
  // One process is alone on its outbox: a published row's delete rides its next decision (ADR 0039).
  const relay = new OutboxRelay(dataSource, (topic, messages) => bus.publish(topic, messages), {
    deletesRide: config.mode === 'embedded',
  });
  relay.start();
  const pruning = setInterval(() => {
    pruneProcessedMessages(dataSource, config.dedupeRetentionMs).catch((e: unknown) =>
      console.error('pruning processed_messages failed:', e instanceof Error ? e.message : e),
    );
    pruneIdempotencyRecords(dataSource).catch((e: unknown) =>
      console.error('pruning idempotency_records failed:', e instanceof Error ? e.message : e),
    );
  }, PRUNE_EVERY_MS);
  pruning.unref();
  const vacuum = (await needsOwnVacuum(dataSource, embedded !== undefined))
    ? new PeriodicVacuum(dataSource)
    : undefined;
  if (vacuum && !embedded) {
    console.warn(
      `autovacuum is off on this Postgres: this host vacuums it every ${VACUUM_EVERY_MS / 1000} s, one process at a time (docs/capacity.md)`,
    );
  }
  vacuum?.start();
  return {
    config,
    bus,
    dataSource,
    feed,
    relay,
    async close() {
      clearInterval(pruning);
      await vacuum?.stop();
      await relay.stop();
      await bus.stop();
      await feed.close();
      await dataSource.destroy();
      await embedded?.close();
    },
  };
}
