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

/** The modes every end-to-end suite runs against: one API, two ways to run it. */
export const MODES = {
  embedded: async (): Promise<HostUnderTest> => {
    const db = await createTestDatabase('e2e_embedded');
    const host = await startEmbeddedHost({ databaseUrl: db.url });
    return { host, db, stop: async () => (await host.stop(), await db.drop()) };
  },
  distributed: async (): Promise<HostUnderTest> => {
    const db = await createTestDatabase('e2e_distributed');
    const host = await startDistributedStack({ databaseUrl: db.url, instances: 2 });
    return { host, db, stop: async () => (await host.stop(), await db.drop()) };
  },
} as const;
