import { stamp, upcast, type VersionedShape } from '@openwop/kernel';
import { initialRunState, type RunRecord, type RunState } from './run.state';

/**
 * The stored shape of the engine's run state (`engine_runs.state`, ADR 0031). Version 0 is the
 * unversioned document of the releases before versions; version 1 is the same shape, tagged.
 * A change to {@link RunRecord} that an older reader would misread adds version 2 and its step here,
 * in the release before the writer emits it.
 */
export const RUN_STATE_SHAPE: VersionedShape<RunRecord> = {
  name: 'engine run state',
  current: 1,
  oldestReadable: 0,
  steps: { 0: (doc) => doc },
};

/** The document a run's state is stored as: the state, stamped with the current version. */
export function runStateDocument(state: RunRecord): RunRecord & { readonly schemaVersion: number } {
  return stamp(RUN_STATE_SHAPE, state);
}

/**
 * A stored run state document (or none: the run does not exist) as today's state, upcast from any
 * readable version. The one way `engine_runs.state` is read.
 *
 * @throws UnreadableSchemaVersion (`@openwop/kernel`) for a version this build does not read.
 */
export function runStateFromDocument(doc: object | null | undefined): RunState {
  return doc ? upcast(RUN_STATE_SHAPE, doc) : initialRunState();
}
