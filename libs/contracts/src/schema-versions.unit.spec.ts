import type { CommandEnvelope } from './envelope';
import { INTERRUPT_COMMAND_DATA } from './interrupt-commands';
import { assertCommand } from './message-validation';
import type { RunEventDoc } from './run-event';
import { SchemaValidationError } from './schema-validation';
import { COMMAND_ENVELOPE_VERSION, upcastRunEvent, versionedCommand } from './schema-versions';

/** An `interrupt.resolve` as the previous release wrote it: no `schemaVersion` (version 0). */
const v0Resolve = {
  id: 'c1',
  type: 'interrupt.resolve',
  occurredAt: '2026-01-01T00:00:00.000Z',
  correlationId: 'r1',
  actor: { tenant: 't1', principal: 'p' },
  data: { runId: 'r1', nodeId: 'gate', via: 'api', resumeValue: { action: 'accept' } },
};

describe('command envelope versions (ADR 0031)', () => {
  it('writers stamp the current version, first', () => {
    const written = versionedCommand(v0Resolve as CommandEnvelope);
    expect(COMMAND_ENVELOPE_VERSION).toBe(1);
    expect(Object.keys(written)[0]).toBe('schemaVersion');
    expect(written).toEqual({ schemaVersion: 1, ...v0Resolve });
  });

  it('a version-0 (unversioned) command is read and upcast to the current version', () => {
    const read = assertCommand<CommandEnvelope>(structuredClone(v0Resolve), INTERRUPT_COMMAND_DATA);
    expect(read).toEqual({ schemaVersion: 1, ...v0Resolve });
  });

  it('a current-version command is read as it is', () => {
    const read = assertCommand<CommandEnvelope>({ schemaVersion: 1, ...v0Resolve }, INTERRUPT_COMMAND_DATA);
    expect(read).toEqual({ schemaVersion: 1, ...v0Resolve });
  });

  it.each([2, -1, 'one'])(
    'a command of schemaVersion %p is refused as a contract violation naming the version',
    (v) => {
      const read = (): unknown => assertCommand({ ...v0Resolve, schemaVersion: v }, INTERRUPT_COMMAND_DATA);
      expect(read).toThrow(SchemaValidationError);
      expect(read).toThrow(
        `command envelope: schemaVersion ${JSON.stringify(v)} is not readable by this build (it reads 0..1`,
      );
    },
  );
});

describe('run event versions', () => {
  const event: RunEventDoc = {
    eventId: 'r1:0',
    runId: 'r1',
    type: 'run.started',
    payload: { workflowId: 'wf' },
    timestamp: '2026-01-01T00:00:00.000Z',
    sequence: 0,
    schemaVersion: 1,
  };

  it('an event of the current version, or of none, is read as it is', () => {
    expect(upcastRunEvent(event)).toBe(event);
    const { schemaVersion: _v, ...unversioned } = event;
    expect(upcastRunEvent(unversioned)).toEqual(unversioned);
  });

  it('an event of a later version is folded as it is (the spec makes readers tolerant)', () => {
    const later = { ...event, schemaVersion: 7 };
    expect(upcastRunEvent(later)).toBe(later);
  });
});
