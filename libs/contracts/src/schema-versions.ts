import { schemaVersionOf, stamp, upcast, type VersionedShape } from '@openwop/kernel';
import type { CommandEnvelope } from './envelope';
import type { RunEventDoc } from './run-event';

/**
 * The command envelope on every command topic (engine, interrupt, token), `data` included: one
 * version for all command types of this contract. Version 0 is the unversioned envelope of the
 * releases before ADR 0031; version 1 is the same shape with `schemaVersion: 1`. A command type whose
 * data changes incompatibly bumps this version and adds the step here (per type, inside the step).
 */
export const COMMAND_ENVELOPE_SHAPE: VersionedShape<CommandEnvelope> = {
  name: 'command envelope',
  current: 1,
  oldestReadable: 0,
  steps: { 0: (doc) => doc },
};

/** The version every command writer puts on its envelope. */
export const COMMAND_ENVELOPE_VERSION = COMMAND_ENVELOPE_SHAPE.current;

/** `command` as a writer sends it: stamped with the current envelope version. */
export function versionedCommand<T extends CommandEnvelope>(command: T): T {
  return stamp(COMMAND_ENVELOPE_SHAPE, command) as T;
}

/**
 * A command envelope as read off the bus, upcast to the current version (and stamped with it).
 * Called once, by {@link assertCommand}, the one place every consumer reads commands.
 *
 * @throws UnreadableSchemaVersion (from `@openwop/kernel`) for a version this build does not read.
 */
export function upcastCommandEnvelope(raw: object): object {
  return stamp(COMMAND_ENVELOPE_SHAPE, upcast<CommandEnvelope>(COMMAND_ENVELOPE_SHAPE, raw));
}

/**
 * The run event document's own version (`RunEventDoc.schemaVersion`, defined by the OpenWOP spec:
 * "bumped when an individual event type's payload contract changes"). Every event this host wrote
 * carries 1; an event without one is read as 1.
 */
export const RUN_EVENT_SCHEMA_VERSION = 1;

/**
 * Per event type, the steps from an older `schemaVersion` to the next (`[type][v]` turns a version-v
 * payload into a version-v+1 one). Empty: no event type has changed since version 1.
 */
const RUN_EVENT_STEPS: Readonly<Record<string, Readonly<Record<number, (payload: unknown) => unknown>>>> = {};

/**
 * A run event as read from the log (the projector, the engine's own log), its payload upcast to
 * {@link RUN_EVENT_SCHEMA_VERSION}. The spec makes readers tolerant: an event of a later version is
 * folded as it is (best effort), never refused.
 */
export function upcastRunEvent(doc: RunEventDoc): RunEventDoc {
  const found = schemaVersionOf(doc);
  let version = typeof found === 'number' && found > 0 ? found : RUN_EVENT_SCHEMA_VERSION;
  if (version >= RUN_EVENT_SCHEMA_VERSION) return doc;
  let payload = doc.payload;
  const steps = Object.hasOwn(RUN_EVENT_STEPS, doc.type) ? RUN_EVENT_STEPS[doc.type] : undefined;
  for (; version < RUN_EVENT_SCHEMA_VERSION; version++) payload = steps?.[version]?.(payload) ?? payload;
  return { ...doc, payload, schemaVersion: RUN_EVENT_SCHEMA_VERSION };
}
