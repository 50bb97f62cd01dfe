export { DomainError, assertNever } from './domain-error';
export { fold, type Decider, type Message } from './decider';
export { ownValue, setOwn } from './own-keys';
export { instantAfter, LATEST_INSTANT_MS } from './instants';
export {
  SCHEMA_VERSION_FIELD,
  UnreadableSchemaVersion,
  schemaVersionOf,
  stamp,
  upcast,
  type VersionedShape,
} from './schema-version';
export {
  loadHostSecret,
  type HostSecretConfig,
  type HostSecretKind,
  type HostSecretSource,
  type LoadedHostSecret,
} from './host-secret';
