import { getMetadataStorage, validateSync, ValidationTypes, type ValidationArguments } from 'class-validator';
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
  if (typeof value !== 'object' || value === null)
    throw new SchemaValidationError('CommandEnvelope', [{ path: '', message: 'must be an object' }]);
  const v = readableEnvelope(value) as Partial<CommandEnvelope>;
  const problems: { path: string; message: string }[] = [];
  for (const field of ['id', 'type', 'occurredAt', 'correlationId'] as const) {
    if (typeof v[field] !== 'string' || v[field] === '')
      problems.push({ path: `/${field}`, message: 'must be a non-empty string' });
  }
  if (typeof v.actor !== 'object' || v.actor === null || typeof v.actor.tenant !== 'string') {
    problems.push({ path: '/actor', message: 'must carry tenant and principal' });
  } else {
    for (const field of ['groups', 'roles'] as const) {
      const names: unknown = v.actor[field];
      if (
        names !== undefined &&
        !(Array.isArray(names) && names.every((g: unknown) => typeof g === 'string' && g !== ''))
      )
        problems.push({
          path: `/actor/${field}`,
          message: 'must be an array of non-empty strings when present',
        });
    }
  }
  const dataClass =
    typeof v.type === 'string' && Object.hasOwn(dataClasses, v.type) ? dataClasses[v.type] : undefined;
  if (!dataClass) problems.push({ path: '/type', message: `unknown command type ${String(v.type)}` });
  if (problems.length) throw new SchemaValidationError('CommandEnvelope', problems);
  const data = dataInstance(dataClass!, v.data ?? {});
  if (compiledCheck(dataClass!)?.(data)) return { ...v, data } as unknown as T;
  // Refused by the compiled check (or a class it cannot run): class-validator decides and words it.
  const errors = validateSync(data, VALIDATE_OPTIONS);
  if (errors.length) {
    throw new SchemaValidationError(
      `${String(v.type)} data`,
      errors.flatMap((e) =>
        Object.values(e.constraints ?? {}).map((m) => ({ path: `/data/${e.property}`, message: m })),
      ),
    );
  }
  return { ...v, data } as unknown as T;
}

const VALIDATE_OPTIONS = { whitelist: true, forbidNonWhitelisted: true } as const;

/** Accepts an instance of its class exactly when `validateSync(…, VALIDATE_OPTIONS)` finds no error. */
type CompiledCheck = (instance: object) => boolean;

const compiledChecks = new WeakMap<DataClass, CompiledCheck | null>();

/** {@link compileCheck} of `dataClass`, built on first use. */
function compiledCheck(dataClass: DataClass): CompiledCheck | null {
  let check = compiledChecks.get(dataClass);
  if (check === undefined) {
    check = compileCheck(dataClass);
    compiledChecks.set(dataClass, check);
  }
  return check;
}

interface PropertyRule {
  readonly property: string;
  /** `@IsOptional()` and `@ValidateIf()`: the property's rules run only when all of these hold. */
  readonly conditions: ((object: object, value: unknown) => boolean)[];
  readonly constraints: {
    readonly validate: (value: unknown, args: ValidationArguments) => unknown;
    readonly constraints: unknown[];
    readonly validateIf: ((object: object, value: unknown) => boolean) | undefined;
  }[];
}

/**
 * The class's class-validator rules as one function, built once per class from the same metadata and
 * the same constraint functions `validateSync` runs, without its per-call work: the metadata search
 * over every registered class, the grouping, a `ValidationError` per property, the container lookup
 * of each constraint. It only says yes or no; a no goes to `validateSync`, so a refusal is worded and
 * shaped as before (and a yes `validateSync` would not give is a bug the unit spec pins against).
 * `null`: the class uses a rule this does not run (nested, `each`, async, `@IsDefined`, …), so
 * `validateSync` checks every instance of it.
 */
export function compileCheck(dataClass: DataClass): CompiledCheck | null {
  const storage = getMetadataStorage();
  // As validateSync's executor asks (no groups, `always` and `strictGroups` off).
  const metadatas = storage.getTargetValidationMetadatas(
    dataClass,
    undefined as unknown as string,
    false,
    false,
    undefined,
  );
  if (metadatas.length === 0) return null; // validateSync refuses it as an unknown value
  const rules = new Map<string, PropertyRule>();
  for (const m of metadatas) {
    let rule = rules.get(m.propertyName);
    if (!rule) {
      rule = { property: m.propertyName, conditions: [], constraints: [] };
      rules.set(m.propertyName, rule);
    }
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      rule.conditions.push(m.constraints[0] as (object: object, value: unknown) => boolean);
    } else if (m.type === ValidationTypes.CUSTOM_VALIDATION && !m.each) {
      for (const c of storage.getTargetValidatorConstraints(m.constraintCls)) {
        if (c.async) return null;
        const instance = c.instance;
        rule.constraints.push({
          validate: (value, args) => instance.validate(value, args),
          constraints: m.constraints,
          validateIf: m.validateIf,
        });
      }
    } else if (m.type !== ValidationTypes.WHITELIST) {
      return null;
    }
  }
  const declared = new Set(rules.keys());
  const properties = [...rules.values()];
  const targetName = dataClass.name;
  return (object) => {
    for (const key of Object.keys(object)) if (!declared.has(key)) return false;
    const fields = object as Record<string, unknown>;
    for (const rule of properties) {
      const value = fields[rule.property];
      let applies = true;
      for (const condition of rule.conditions) applies = condition(object, value) && applies;
      if (!applies) continue;
      for (const c of rule.constraints) {
        if (c.validateIf && !c.validateIf(object, value)) continue;
        const valid = c.validate(value, {
          targetName,
          property: rule.property,
          object,
          value,
          constraints: c.constraints,
        });
        if (typeof valid !== 'boolean' || !valid) return false; // a promise (async) goes to validateSync
      }
    }
    return true;
  };
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
