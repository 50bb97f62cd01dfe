import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from 'pg';

/**
 * Jest globalSetup of the integration and end-to-end tiers: a real Kafka broker (started by
 * tools/kafka/kafka.sh when none answers; it is idempotent) and a reachable real Postgres.
 */
export default async function globalSetup(): Promise<void> {
  const root = resolve(__dirname, '../../..');
  if (!process.env.KAFKA_BROKERS) {
    execFileSync('bash', [resolve(root, 'tools/kafka/kafka.sh'), 'start'], { stdio: 'inherit' });
    process.env.KAFKA_BROKERS = '127.0.0.1:9092';
  }
  const url = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (e) {
    throw new Error(
      `integration tests need Postgres at ${url}: ${e instanceof Error ? e.message : String(e)}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
