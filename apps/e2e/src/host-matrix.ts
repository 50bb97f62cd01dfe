import {
  createTestDatabase,
  startDistributedStack,
  startEmbeddedHost,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';

/** A host under test and the database behind it, torn down together. */
export interface HostUnderTest {
  readonly host: RunningHost;
  readonly db: TestDatabase;
  stop(): Promise<void>;
}

/**
 * The modes every end-to-end suite runs against: one API, two ways to run it. `env` adds to the
 * environment of every host process (e.g. `WOP_TOKEN_TTL_MS`).
 */
export const MODES = {
  embedded: async (env?: Record<string, string>): Promise<HostUnderTest> => {
    const db = await createTestDatabase('e2e_embedded');
    const host = await startEmbeddedHost({ databaseUrl: db.url, ...(env ? { env } : {}) });
    return { host, db, stop: async () => (await host.stop(), await db.drop()) };
  },
  distributed: async (env?: Record<string, string>): Promise<HostUnderTest> => {
    const db = await createTestDatabase('e2e_distributed');
    const host = await startDistributedStack({ databaseUrl: db.url, instances: 2, ...(env ? { env } : {}) });
    return { host, db, stop: async () => (await host.stop(), await db.drop()) };
  },
} as const;
