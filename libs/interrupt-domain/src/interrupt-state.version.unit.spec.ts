import { UnreadableSchemaVersion } from '@openwop/kernel';
import { initialInterruptState, type InterruptState } from './interrupt.state';
import {
  INTERRUPT_STATE_SHAPE,
  interruptStateDocument,
  interruptStateFromDocument,
} from './interrupt-state.version';
import { approvalData, given, opened } from './interrupt.given.spec';

/** A pending approval as the previous release stored it: today's shape, no `schemaVersion`. */
function v0Document(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(given(opened('approval', approvalData())).state)) as Record<
    string,
    unknown
  >;
}

describe('interrupt state versions (ADR 0031)', () => {
  it('writes version 1, and reads it back as the state it was', () => {
    const state = v0Document() as unknown as Exclude<InterruptState, { status: 'none' }>;
    const doc = JSON.parse(JSON.stringify(interruptStateDocument(state))) as Record<string, unknown>;
    expect(INTERRUPT_STATE_SHAPE.current).toBe(1);
    expect(doc['schemaVersion']).toBe(1);
    expect(interruptStateFromDocument(doc)).toEqual(state);
  });

  it("reads an unversioned (version 0) document as today's state", () => {
    const v0 = v0Document();
    expect(interruptStateFromDocument(v0)).toEqual(v0);
    expect(interruptStateFromDocument(undefined)).toEqual(initialInterruptState());
  });

  it('refuses a version written by a later release', () => {
    expect(() => interruptStateFromDocument({ ...v0Document(), schemaVersion: 2 })).toThrow(
      UnreadableSchemaVersion,
    );
  });
});
