export {
  BUS,
  DATA_SOURCE,
  DECIDED_THROUGH,
  DECISION_PROJECTION,
  HOST_CONFIG,
  OUTBOX_RELAY,
  RUN_EVENT_FEED,
} from './tokens';
export { decidedThroughFor } from './decided-through';
export { decisionProjectionFor } from './decision-projection';
export { DEFAULT_COMMAND_TIMEOUT_MS, readHostConfig, type HostConfig } from './host-config';
export { startPlatform, type Platform } from './platform';
export { PlatformModule } from './platform.module';
export { closeOnSignals, runServiceProcess, rootModule, startMetricsListener } from './run-service';
export {
  checkPlatformReadiness,
  READINESS_TIMEOUT_MS,
  type DependencyState,
  type PlatformReadiness,
  type ReadinessDependencies,
} from './readiness';
export { createHostResolver, type HostResolver, type ResolvePurpose } from './host-resolver';
export { postPinned, type PinnedAnswer, type PinnedPost } from './pinned-post';
export { readOrCreateKeyFile } from './key-file';
