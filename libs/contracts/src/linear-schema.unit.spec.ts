import { fullFormats } from 'ajv-formats/dist/formats';
import {
  UNTRUSTED_SCHEMA_LIMITS,
  UntrustedSchemaCompiler,
  UntrustedSchemaError,
  compileLinearPattern,
  newLinearAjv,
  untrustedSchemaProblem,
} from './linear-schema';
import { validateWorkflowDefinition, withDefinitionDefaults } from './workflow-validation';

// A backtracking engine needs ~2^40 steps for this input: on one, these tests hang until jest's timeout.
const CATASTROPHIC = '^(a+)+$';
const EVIL = 'a'.repeat(40) + '!';

describe('linear-time patterns', () => {
  it('newLinearAjv matches a catastrophic pattern correctly on RE2', () => {
    const validate = newLinearAjv().compile({ type: 'string', pattern: CATASTROPHIC });
    expect(validate(EVIL)).toBe(false);
    expect(validate('a'.repeat(40))).toBe(true);
  });

  it('patternProperties and propertyNames run on RE2 too', () => {
    const validate = newLinearAjv().compile({
      type: 'object',
      patternProperties: { [CATASTROPHIC]: { type: 'number' } },
      propertyNames: { pattern: '^(a|aa)+$|^b$' },
    });
    expect(validate({ [EVIL.slice(0, -1)]: 1, b: 'x' })).toBe(true);
    expect(validate({ [EVIL]: 1 })).toBe(false);
    expect(validate({ [EVIL.slice(0, -1)]: 'not a number' })).toBe(false);
  });

  it('keeps one matcher per distinct pattern (ajv keys them by toString)', () => {
    const validate = newLinearAjv().compile({
      type: 'object',
      properties: { x: { pattern: '^x$' }, y: { pattern: '^y$' } },
    });
    expect(validate({ x: 'x', y: 'y' })).toBe(true);
    expect(validate({ x: 'y', y: 'y' })).toBe(false);
  });

  it('reads JSON Schema (ECMA-262) syntax: \\u escapes, named groups, \\d', () => {
    const validate = newLinearAjv().compile({ type: 'string', pattern: '^\\u0041(?<n>\\d{2})$' });
    expect(validate('A42')).toBe(true);
    expect(validate('B42')).toBe(false);
  });

  it.each([
    ['backreference', '^(a)\\1$'],
    ['named backreference', '^(?<x>a)\\k<x>$'],
    ['lookahead', '^(?=a)a$'],
    ['negative lookahead', '^(?!b)a$'],
    ['lookbehind', '(?<=a)b'],
    ['negative lookbehind', '(?<!a)b'],
  ])('refuses a %s, naming the pattern', (_name, pattern) => {
    expect(() => compileLinearPattern(pattern)).toThrow(
      `pattern ${JSON.stringify(pattern)} is not supported: backreferences and lookaround cannot be matched in linear time`,
    );
    expect(() => newLinearAjv().compile({ type: 'string', pattern })).toThrow(JSON.stringify(pattern));
  });
});

describe('formats', () => {
  const samples = [
    '',
    'P',
    'P1D',
    'PT',
    'PT1H',
    'P1W',
    'P1Y2M3DT4H5M6S',
    'P1DT',
    '2024-02-29',
    '2023-02-29',
    '12:30:00Z',
    '12:30:00',
    '2024-01-01T12:30:00Z',
    '2024-01-01 12:30:00+01:00',
    'a.b.c',
    'example.com',
    'example.com.',
    'ex_ample.com',
    '-a.com',
    'a'.repeat(64) + '.com',
    `${'a.'.repeat(127)}a`,
    `${'a.'.repeat(128)}a`,
    'a@b.co',
    'a@@b',
    'x@-b.co',
    '1.2.3.4',
    '256.1.1.1',
    '::1',
    '1::2::3',
    'fe80::1%eth0',
    'urn:isbn:123',
    'http://x.y/z?q#f',
    '/relative/path',
    'rel',
    '#frag',
    'a b',
    'http://[::1]:80/',
    '3fa85f64-5717-4562-b3fc-2c963f66afa6',
    'urn:uuid:3fa85f64-5717-4562-b3fc-2c963f66afa6',
    '3fa85f64',
    '/a~0b/c~1d',
    '/a~2',
    '0#',
    '1/a',
    '#/a/b',
    'aGVsbG8=',
    'aGVsbG8',
    'aGVs\nbG8=',
    '{x}',
    '{+x,y*}',
    '{',
  ];
  const ajvFormats = newLinearAjv().formats as Record<string, unknown>;
  const original = (name: string): ((s: string) => boolean) => {
    const def = (fullFormats as Record<string, unknown>)[name];
    const v = (
      def instanceof RegExp || typeof def === 'function' ? def : (def as { validate: unknown }).validate
    ) as RegExp | ((s: string) => boolean);
    return v instanceof RegExp ? (s) => ((v.lastIndex = 0), v.test(s)) : v;
  };
  const ours = (name: string): ((s: string) => boolean) => {
    const def = ajvFormats[name];
    return (typeof def === 'function' ? def : (def as { validate: (s: string) => boolean }).validate) as (
      s: string,
    ) => boolean;
  };

  it.each(
    Object.keys(fullFormats).filter(
      (n) => !['url', 'regex', 'int32', 'int64', 'float', 'double', 'password', 'binary'].includes(n),
    ),
  )('%s answers as ajv-formats does', (name) => {
    for (const s of samples) expect([s, ours(name)(s)]).toEqual([s, original(name)(s)]);
  });

  it('url is a uri with an http, https or ftp scheme, linear on a hostile value', () => {
    expect(ours('url')('https://example.com/a?b#c')).toBe(true);
    expect(ours('url')('mailto:a@b.c')).toBe(false);
    // ajv-formats' own url expression takes seconds on this (quadratic backtracking).
    expect(ours('url')(`http://${':'.repeat(50_000)}\n`)).toBe(false);
  });

  it('regex accepts what the host can match and refuses backreferences', () => {
    expect(ours('regex')('^a+$')).toBe(true);
    expect(ours('regex')('(a)\\1')).toBe(false);
    expect(ours('regex')('(')).toBe(false);
  });
});

describe('UntrustedSchemaCompiler', () => {
  it('validates a catastrophic pattern correctly', () => {
    const validate = new UntrustedSchemaCompiler().compile({
      type: 'object',
      properties: { answer: { type: 'string', pattern: CATASTROPHIC } },
    });
    expect(validate({ answer: EVIL })).toBe(false);
    expect(validate({ answer: 'aaaa' })).toBe(true);
  });

  it('refuses a lookaround with an error naming the pattern and its place', () => {
    const compile = () =>
      new UntrustedSchemaCompiler().compile({ properties: { a: { pattern: '^(?!x).*$' } } });
    expect(compile).toThrow(UntrustedSchemaError);
    expect(compile).toThrow('pattern "^(?!x).*$" is not supported');
    expect(untrustedSchemaProblem({ properties: { a: { pattern: '^(?!x).*$' } } })?.path).toBe(
      '/properties/a/pattern',
    );
  });

  it('refuses schemas beyond the size and depth bounds', () => {
    let deep: unknown = { type: 'string' };
    for (let i = 0; i <= UNTRUSTED_SCHEMA_LIMITS.maxDepth; i++) deep = { items: deep };
    expect(() => new UntrustedSchemaCompiler().compile(deep)).toThrow(/nested deeper than/);
    const big = { enum: ['x'.repeat(UNTRUSTED_SCHEMA_LIMITS.maxBytes)] };
    expect(() => new UntrustedSchemaCompiler().compile(big)).toThrow(/larger than/);
  });

  it('keeps at most maxCached validators, dropping the least recently used', () => {
    const compiler = new UntrustedSchemaCompiler(3);
    const first = compiler.compile({ const: 0 });
    for (let i = 1; i <= 5; i++) {
      compiler.compile({ const: i });
      expect(compiler.compile({ const: 0 })).toBe(first); // used again: stays
    }
    expect(compiler.size).toBe(3);
    const again = compiler.compile({ const: 1 }); // dropped: compiled afresh, still correct
    expect(again(1)).toBe(true);
    expect(again(2)).toBe(false);
  });
});

describe('workflow registration', () => {
  const withSchema = (config: Record<string, unknown>) =>
    withDefinitionDefaults({
      id: 'wf',
      name: 'wf',
      version: '1',
      nodes: [{ id: 'a', typeId: 'core.custom', config }],
      edges: [],
    });

  it('refuses a resumeSchema whose pattern uses a backreference, naming the pattern', () => {
    const problems = validateWorkflowDefinition(
      withSchema({ resumeSchema: { type: 'string', pattern: '^(a+)\\1$' } }),
    );
    expect(problems).toEqual([
      {
        path: '/nodes/0/config/resumeSchema/pattern',
        message: expect.stringContaining(
          'pattern "^(a+)\\\\1$" is not supported: backreferences and lookaround',
        ) as string,
      },
    ]);
  });

  it('refuses lookaround in clarification questions and turn schemas', () => {
    const problems = validateWorkflowDefinition(
      withSchema({
        questions: [{ id: 'q', schema: { pattern: '(?<=x)y' } }],
        turnSchema: { patternProperties: { '^(?=a)': {} } },
      }),
    );
    expect(problems.map((p) => p.path)).toEqual([
      '/nodes/0/config/turnSchema/patternProperties',
      '/nodes/0/config/questions/0/schema/pattern',
    ]);
  });

  it('refuses a resumeSchema that is not a JSON Schema', () => {
    expect(validateWorkflowDefinition(withSchema({ resumeSchema: { type: 7 } }))).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^\/nodes\/0\/config\/resumeSchema/) as string }),
    ]);
  });

  it('accepts a catastrophic-looking pattern that RE2 runs in linear time', () => {
    expect(
      validateWorkflowDefinition(withSchema({ resumeSchema: { type: 'string', pattern: CATASTROPHIC } })),
    ).toEqual([]);
  });
});
