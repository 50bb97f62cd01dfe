import { UnreadableSchemaVersion } from '@openwop/kernel';
import { RUN_STATE_SHAPE, runStateDocument, runStateFromDocument } from './run-state.version';
import { initialRunState, type RunRecord } from './run.state';
import { fixture, start } from './test-kit.spec';

/** A suspended run's state as the previous release stored it: today's shape, no `schemaVersion`. */
async function v0Document(): Promise<Record<string, unknown>> {
  const { state } = await start(fixture('conformance-approval'));
  return JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
}

describe('engine run state versions (ADR 0031)', () => {
  it('writes version 1, and reads it back as the state it was', async () => {
    const state = (await v0Document()) as unknown as RunRecord;
    const doc = JSON.parse(JSON.stringify(runStateDocument(state))) as Record<string, unknown>;
    expect(RUN_STATE_SHAPE.current).toBe(1);
    expect(doc['schemaVersion']).toBe(1);
    expect(runStateFromDocument(doc)).toEqual(state);
  });

  it("reads an unversioned (version 0) document as today's state, without a version field riding along", async () => {
    const v0 = await v0Document();
    const read = runStateFromDocument(v0);
    expect(read).toEqual(v0);
    expect(Object.hasOwn(read, 'schemaVersion')).toBe(false);
  });

  it('no row is no run', () => {
    expect(runStateFromDocument(undefined)).toEqual(initialRunState());
    expect(runStateFromDocument(null)).toEqual(initialRunState());
  });

  it('refuses a version written by a later release, naming the shape', async () => {
    const doc = { ...(await v0Document()), schemaVersion: 2 };
    expect(() => runStateFromDocument(doc)).toThrow(UnreadableSchemaVersion);
    expect(() => runStateFromDocument(doc)).toThrow(
      'engine run state: schemaVersion 2 is not readable by this build (it reads 0..1',
    );
  });
});
