import {
  getMetadataStorage,
  IsInt,
  IsOptional,
  IsString,
  validateSync,
  ValidateNested,
  ValidationTypes,
} from 'class-validator';
import type { CommandEnvelope } from './envelope';
import { ENGINE_COMMAND_DATA } from './engine-commands';
import { INTERRUPT_COMMAND_DATA } from './interrupt-commands';
import { assertCommand, compileCheck } from './message-validation';
import { SchemaValidationError } from './schema-validation';
import { TOKEN_COMMAND_DATA } from './token-commands';

type DataClass = new () => object;

const REGISTRIES: Record<string, Readonly<Record<string, DataClass>>> = {
  engine: ENGINE_COMMAND_DATA,
  interrupt: INTERRUPT_COMMAND_DATA,
  token: TOKEN_COMMAND_DATA,
};

const CLASSES: [string, string, DataClass][] = Object.entries(REGISTRIES).flatMap(([registry, classes]) =>
  Object.entries(classes).map(([type, cls]): [string, string, DataClass] => [registry, type, cls]),
);

/** A deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values as JSON brings them: strings around every length bound the contract uses, numbers, objects, arrays. */
const ANY_VALUES: unknown[] = [
  '',
  'a',
  'r-1.a:b_9',
  'not an id!',
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(128),
  'x'.repeat(129),
  'x'.repeat(200),
  'x'.repeat(201),
  'x'.repeat(256),
  'x'.repeat(257),
  'x'.repeat(512),
  'x'.repeat(513),
  'x'.repeat(1000),
  'x'.repeat(1001),
  'x'.repeat(2000),
  'x'.repeat(2001),
  'x'.repeat(4096),
  'x'.repeat(4097),
  '😀'.repeat(128), // 256 UTF-16 units, 128 characters by validator.js' count
  '😀'.repeat(129),
  '2026-01-01T00:00:00.000Z',
  0,
  1,
  -1,
  7,
  1.5,
  2 ** 53,
  true,
  false,
  null,
  {},
  { a: 1 },
  { runId: 'r', nodeId: 'n' },
  [],
  [1, 'a'],
];

/** The values of every `@IsIn` of the class, so generated objects hit the allowed ones too. */
function allowedValues(cls: DataClass): unknown[] {
  return getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', false, false)
    .filter((m) => m.type === ValidationTypes.CUSTOM_VALIDATION && m.name === 'isIn')
    .flatMap((m) => m.constraints[0] as unknown[]);
}

function declaredProperties(cls: DataClass): string[] {
  return [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(cls, '', false, false)
        .map((m) => m.propertyName),
    ),
  ];
}

/** An instance of `cls` with `fields` as own properties, as `assertCommand` builds it. */
function instanceOf(cls: DataClass, fields: Record<string, unknown>): object {
  return Object.assign(new cls(), fields);
}

const classValidatorAccepts = (instance: object) =>
  validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }).length === 0;

describe('the compiled command check', () => {
  it.each(CLASSES)('compiles every data class of the contract (%s %s)', (_registry, _type, cls) => {
    expect(compileCheck(cls)).not.toBeNull();
  });

  it.each(CLASSES)(
    'accepts and refuses exactly what class-validator does (%s %s)',
    (_registry, type, cls) => {
      const check = compileCheck(cls)!;
      const next = random([...type].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 7));
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
      const properties = declaredProperties(cls);
      const candidates: unknown[] = [...allowedValues(cls), ...ANY_VALUES];
      // A value class-validator accepts for each property (the classes have no rules across fields),
      // so a generated object is valid or a few fields away from valid.
      const valid: Record<string, unknown> = {};
      for (const p of properties) {
        const ok = candidates.find(
          (c) =>
            !validateSync(instanceOf(cls, { [p]: c }), { whitelist: true, forbidNonWhitelisted: true }).some(
              (e) => e.property === p,
            ),
        );
        if (ok !== undefined) valid[p] = ok;
      }
      let accepted = 0;
      let refused = 0;
      for (let i = 0; i < 600; i++) {
        const fields: Record<string, unknown> = {};
        const mutate = next() < 0.2 ? 0 : next() * 0.5;
        for (const p of properties) {
          const r = next();
          if (r >= mutate) {
            if (p in valid) fields[p] = valid[p];
          } else if (r < mutate * 0.2) {
            continue; // absent
          } else fields[p] = pick(candidates);
        }
        if (next() < 0.05) fields[pick(['extra', 'runID', 'data'])] = 'x';
        const instance = instanceOf(cls, fields);
        const expected = classValidatorAccepts(instance);
        if (check(instance) !== expected) {
          throw new Error(
            `${type}: compiled says ${String(!expected)}, class-validator ${String(expected)}, for ${JSON.stringify(fields)}`,
          );
        }
        if (expected) accepted += 1;
        else refused += 1;
      }
      // Both sides were exercised, so the comparison says something about each.
      expect(refused).toBeGreaterThan(0);
      if (properties.length > 0) expect(accepted).toBeGreaterThan(0);
    },
  );

  it('leaves a class with a rule it does not run to class-validator, and assertCommand still applies that rule', () => {
    class Inner {
      @IsInt() n!: number;
    }
    class Nested {
      @IsString() runId!: string;
      @IsOptional() @ValidateNested() inner?: Inner;
    }
    class Each {
      @IsString({ each: true }) names!: string[];
    }
    expect(compileCheck(Nested)).toBeNull();
    expect(compileCheck(Each)).toBeNull();
    const command = (data: unknown) => ({
      id: 'c1',
      type: 'each',
      occurredAt: 'now',
      correlationId: 'r1',
      actor: { tenant: 't', principal: 'p' },
      data,
    });
    expect(
      assertCommand<CommandEnvelope<'each', Each>>(command({ names: ['a', 'b'] }), { each: Each }).data.names,
    ).toEqual(['a', 'b']);
    expect(() => assertCommand(command({ names: ['a', 1] }), { each: Each })).toThrow(SchemaValidationError);
  });
});

describe('assertCommand refuses as before', () => {
  const resolve = (data: Record<string, unknown>) => ({
    id: 'c1',
    type: 'interrupt.resolve',
    occurredAt: '2026-01-01T00:00:00.000Z',
    correlationId: 'r1',
    actor: { tenant: 't1', principal: 'p' },
    data,
  });
  const violations = (value: unknown) => {
    try {
      assertCommand(value, INTERRUPT_COMMAND_DATA);
    } catch (e) {
      if (e instanceof SchemaValidationError) return { schema: e.schema, violations: e.violations };
      throw e;
    }
    throw new Error('accepted');
  };

  it("names each broken field and class-validator's words for it", () => {
    expect(violations(resolve({ runId: '', nodeId: 'gate', via: 'nope', extra: 1 }))).toEqual({
      schema: 'interrupt.resolve data',
      violations: [
        { path: '/data/extra', message: 'property extra should not exist' },
        { path: '/data/runId', message: 'runId must be longer than or equal to 1 characters' },
        {
          path: '/data/via',
          message: 'via must be one of the following values: api, token, legacy-approvals, agent',
        },
      ],
    });
  });

  it('accepts a well-formed command and hands its data on as it came', () => {
    const command = assertCommand<CommandEnvelope<string, Record<string, unknown>>>(
      resolve({ runId: 'r1', nodeId: 'gate', via: 'api', resumeValue: { action: 'accept' } }),
      INTERRUPT_COMMAND_DATA,
    );
    expect({ ...command.data }).toEqual({
      runId: 'r1',
      nodeId: 'gate',
      via: 'api',
      resumeValue: { action: 'accept' },
    });
  });
});
