export { createTestDatabase, dropTestDatabase, type TestDatabase } from './test-database';
export { waitFor } from './wait-for';
export { startApp, freePort, REPO_ROOT, type AppProcess, type StartAppOptions } from './processes';
export {
  startEmbeddedHost,
  startDistributedStack,
  testTokenKeysJson,
  testWebhookSecretKeys,
  TEST_KEYS,
  TEST_API_KEYS_JSON,
  type RunningHost,
} from './hosts';
export {
  deciderSpec,
  type DeciderSpec,
  type DeciderSpecOptions,
  type ErrorCheck,
  type Given,
  type GivenStep,
  type WhenStep,
} from './decider-spec';
