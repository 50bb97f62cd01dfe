import type { CommandEnvelope } from './envelope';
import { INTERRUPT_COMMAND_DATA } from './interrupt-commands';
import { assertCommand } from './message-validation';
import { SchemaValidationError } from './schema-validation';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

/** A resolve command as it arrives from the bus: parsed JSON, so any key is an own property. */
function resolveCommand(resumeValueJson: string, extraDataJson = ''): unknown {
  return JSON.parse(
    `{"id": "c1", "type": "interrupt.resolve", "occurredAt": "2026-01-01T00:00:00.000Z", "correlationId": "r1",
      "actor": {"tenant": "t1", "principal": "p"},
      "data": {"runId": "r1", "nodeId": "gate", "via": "api", "resumeValue": ${resumeValueJson}${extraDataJson}}}`,
  );
}

describe('assertCommand: object keys are data, whatever their name', () => {
  it.each(PROTOTYPE_NAMES)('carries a resume value with a top-level %s key as it came', (key) => {
    const json = `{${JSON.stringify(key)}: {"action": "accept"}, "action": "accept", "n": 1}`;
    const command = assertCommand<CommandEnvelope<string, { resumeValue: Record<string, unknown> }>>(
      resolveCommand(json),
      INTERRUPT_COMMAND_DATA,
    );
    const value = command.data.resumeValue;
    expect(Object.hasOwn(value, key)).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(json)));
  });

  it.each(PROTOTYPE_NAMES)('carries %s keys nested deep in a resume value', (key) => {
    const json = `{"action": "accept", "a": [{${JSON.stringify(key)}: {${JSON.stringify(key)}: 1}}]}`;
    const command = assertCommand<CommandEnvelope<string, { resumeValue: unknown }>>(
      resolveCommand(json),
      INTERRUPT_COMMAND_DATA,
    );
    expect(JSON.stringify(command.data.resumeValue)).toBe(JSON.stringify(JSON.parse(json)));
  });

  it.each(PROTOTYPE_NAMES)('refuses a %s field in the data itself (no command declares one)', (key) => {
    const command = resolveCommand('{"action": "accept"}', `, ${JSON.stringify(key)}: 1`);
    expect(() => assertCommand(command, INTERRUPT_COMMAND_DATA)).toThrow(SchemaValidationError);
  });

  it.each(PROTOTYPE_NAMES)('refuses a command whose type is %s (not a registered type)', (type) => {
    const command = { ...(resolveCommand('{}') as Record<string, unknown>), type };
    expect(() => assertCommand(command, INTERRUPT_COMMAND_DATA)).toThrow(/unknown command type/);
  });

  it('still validates the declared fields', () => {
    const command = resolveCommand('{}', ', "via": "nope"');
    expect(() => assertCommand(command, INTERRUPT_COMMAND_DATA)).toThrow(SchemaValidationError);
  });
});

describe("assertCommand: the actor's groups", () => {
  const withActor = (actor: Record<string, unknown>) => ({
    ...(resolveCommand('{"action": "accept"}') as object),
    actor,
  });

  it('carries a list of group names, and an actor without groups as before', () => {
    const command = assertCommand<CommandEnvelope>(
      withActor({ tenant: 't1', principal: 'p', groups: ['finance'] }),
      INTERRUPT_COMMAND_DATA,
    );
    expect(command.actor.groups).toEqual(['finance']);
    expect(
      assertCommand<CommandEnvelope>(withActor({ tenant: 't1', principal: 'p' }), INTERRUPT_COMMAND_DATA)
        .actor.groups,
    ).toBeUndefined();
  });

  it.each([
    ['a string', 'finance'],
    ['an empty name', ['']],
    ['a non-string', [1]],
    ['an object', { finance: true }],
  ])('refuses groups that are %s', (_what, groups) => {
    expect(() =>
      assertCommand(withActor({ tenant: 't1', principal: 'p', groups }), INTERRUPT_COMMAND_DATA),
    ).toThrow(/actor\/groups|CommandEnvelope/);
  });
});

describe("assertCommand: the actor's roles (RFC 0104 role refs)", () => {
  const withActor = (actor: Record<string, unknown>) => ({
    ...(resolveCommand('{"action": "accept"}') as object),
    actor,
  });

  it('carries a list of role names', () => {
    const command = assertCommand<CommandEnvelope>(
      withActor({ tenant: 't1', principal: 'p', groups: ['finance'], roles: ['controller'] }),
      INTERRUPT_COMMAND_DATA,
    );
    expect(command.actor).toMatchObject({ groups: ['finance'], roles: ['controller'] });
  });

  it.each([
    ['a string', 'controller'],
    ['an empty name', ['']],
    ['a non-string', [1]],
  ])('refuses roles that are %s', (_what, roles) => {
    expect(() =>
      assertCommand(withActor({ tenant: 't1', principal: 'p', roles }), INTERRUPT_COMMAND_DATA),
    ).toThrow(/actor\/roles/);
  });
});
