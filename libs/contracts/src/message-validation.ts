import { validateSync } from 'class-validator';
import { UnreadableSchemaVersion } from '@openwop/kernel';
import type { CommandEnvelope } from './envelope';
import { upcastCommandEnvelope } from './schema-versions';
import { SchemaValidationError } from './schema-validation';

type DataClass = new () => object;

/**
 * Validates a command envelope at a consumer edge: its `schemaVersion` (an older readable one is
 * upcast to the current, ADR 0031), the envelope fields, then `data` against the class-validator
 * class registered for its `type`. Throws {@link SchemaValidationError}, also for a version this
 * build does not read.
 */
export function assertCommand<T extends CommandEnvelope>(
  value: unknown,
  dataClasses: Readonly<Record<string, DataClass>>,
): T {
  if (typeof value !== 'object' || value === null) throw new SchemaValidationError('CommandEnvelope', [{ path: '', message: 'must be an object' }]);
  const v = readableEnvelope(value) as Partial<CommandEnvelope>;
  const problems: { path: string; message: string }[] = [];
  for (const field of ['id', 'type', 'occurredAt', 'correlationId'] as const) {
    if (typeof v[field] !== 'string' || v[field] === '') problems.push({ path: `/${field}`, message: 'must be a non-empty string' });
  }
  if (typeof v.actor !== 'object' || v.actor === null || typeof v.actor.tenant !== 'string') {
    problems.push({ path: '/actor', message: 'must carry tenant and principal' });
  } else if (
    v.actor.groups !== undefined &&
    !(Array.isArray(v.actor.groups) && v.actor.groups.every((g: unknown) => typeof g === 'string' && g !== ''))
  ) {
    problems.push({ path: '/actor/groups', message: 'must be an array of non-empty strings when present' });
  }
  const dataClass = typeof v.type === 'string' && Object.hasOwn(dataClasses, v.type) ? dataClasses[v.type] : undefined;
  if (!dataClass) problems.push({ path: '/type', message: `unknown command type ${String(v.type)}` });
  if (problems.length) throw new SchemaValidationError('CommandEnvelope', problems);
  const data = dataInstance(dataClass!, v.data ?? {});
  const errors = validateSync(data, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length) {
    throw new SchemaValidationError(
      `${String(v.type)} data`,
      errors.flatMap((e) => Object.values(e.constraints ?? {}).map((m) => ({ path: `/data/${e.property}`, message: m }))),
    );
  }
  return { ...v, data } as unknown as T;
}

/** `value` upcast to the current envelope version; an unreadable version is a contract violation. */
function readableEnvelope(value: object): object {
  try {
    return upcastCommandEnvelope(value);
  } catch (e) {
    if (!(e instanceof UnreadableSchemaVersion)) throw e;
    throw new SchemaValidationError('CommandEnvelope', [{ path: '/schemaVersion', message: e.message }]);
  }
}

/**
 * `raw`'s own fields on an instance of `dataClass`, for class-validator, which finds a class's rules
 * through `instance.constructor`. Shallow and by `defineProperty`: nested values (a resume value, the
 * inputs) are carried as they came, whatever their keys are called. class-transformer's
 * `plainToInstance` walked into them and read `value.constructor` as a class (a resume value with a
 * `constructor` key threw a TypeError, so the command was never answered), and its assignment turned
 * a `__proto__` key into the object's prototype. A top-level field named like a member of
 * `Object.prototype` (`constructor`, `__proto__`, `hasOwnProperty`, …), which no command declares,
 * is refused by name: it would hide the class from the validator, whose unknown-field check also
 * looks such names up on a plain object and lets them pass.
 */
function dataInstance(dataClass: DataClass, raw: unknown): object {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SchemaValidationError('command data', [{ path: '/data', message: 'must be an object' }]);
  }
  const inherited = Object.keys(raw).filter((key) => key in Object.prototype);
  if (inherited.length > 0) {
    throw new SchemaValidationError(
      'command data',
      inherited.map((key) => ({ path: `/data/${key}`, message: `property ${key} should not exist` })),
    );
  }
  const instance = new dataClass();
  for (const [key, value] of Object.entries(raw)) {
    Object.defineProperty(instance, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return instance;
}
