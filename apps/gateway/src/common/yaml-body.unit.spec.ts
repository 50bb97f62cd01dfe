import { MAX_JSON_DEPTH, MAX_YAML_ALIASES } from '@openwop/contracts';
import type { DomainError } from '@openwop/kernel';
import { parseYamlBody, yamlShape } from './yaml-body';

function refusal(text: string): DomainError {
  try {
    parseYamlBody(text);
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('accepted');
}

const bomb = [
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
].join('\n');

describe('YAML bodies', () => {
  it('parses a workflow', () => {
    expect(parseYamlBody('id: w\nnodes:\n  - id: a\n    typeId: core.noop\nedges: []\n')).toEqual({
      id: 'w',
      nodes: [{ id: 'a', typeId: 'core.noop' }],
      edges: [],
    });
  });

  it('measures depth on the syntax tree, block and flow alike, before composing', () => {
    expect(yamlShape('- '.repeat(MAX_JSON_DEPTH) + 'x').tooDeep).toBe(false);
    expect(yamlShape('- '.repeat(MAX_JSON_DEPTH + 1) + 'x').tooDeep).toBe(true);
    expect(yamlShape('['.repeat(5_000) + ']'.repeat(5_000)).tooDeep).toBe(true);
    expect(
      yamlShape(Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1').tooDeep,
    ).toBe(true);
    expect(refusal('['.repeat(3_000) + ']'.repeat(3_000)).code).toBe('validation_error');
  });

  it('refuses an alias bomb and too many aliases with validation_error', () => {
    const bombRefusal = refusal(bomb);
    expect(bombRefusal.code).toBe('validation_error');
    expect(bombRefusal.details).toMatchObject({ maxAliases: MAX_YAML_ALIASES });
    const many = `a: &a 1\nb: [${Array.from({ length: MAX_YAML_ALIASES + 1 }, () => '*a').join(',')}]`;
    expect(yamlShape(many).aliases).toBe(MAX_YAML_ALIASES + 1);
    expect(refusal(many).code).toBe('validation_error');
  });

  it('refuses aliases that nest a subtree past the bound once composed', () => {
    const half = Math.ceil(MAX_JSON_DEPTH / 2) + 1;
    const text = `a: &a ${'['.repeat(half)}${']'.repeat(half)}\nb: ${'['.repeat(half)}*a${']'.repeat(half)}`;
    expect(yamlShape(text).tooDeep).toBe(false);
    expect(refusal(text).details).toMatchObject({ maxDepth: MAX_JSON_DEPTH });
  });

  it('refuses syntax errors and text Postgres cannot store', () => {
    expect(refusal('a: [1, 2').code).toBe('validation_error');
    expect(refusal('a: "x\\0y"').details).toMatchObject({ errors: [{ path: '/a' }] });
  });
});
