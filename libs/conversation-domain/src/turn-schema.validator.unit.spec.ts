import { compileTurnSchema, contentViolations } from './turn-schema.validator';

// On a backtracking engine this content takes ~2^40 steps: the test would hang until jest's timeout.
const CATASTROPHIC = '^(a+)+$';
const EVIL = 'a'.repeat(40) + '!';

describe('turn schemas run on a linear-time engine', () => {
  it('checks a catastrophic pattern correctly', () => {
    const schema = { type: 'object', properties: { text: { type: 'string', pattern: CATASTROPHIC } } };
    expect(contentViolations(schema, { text: EVIL }, '/content')).toEqual([
      { path: '/content/text', message: `must match pattern "${CATASTROPHIC}"` },
    ]);
    expect(contentViolations(schema, { text: 'aaa' }, '/content')).toEqual([]);
  });

  it('refuses lookaround with a reason naming the pattern', () => {
    expect(compileTurnSchema({ type: 'string', pattern: '^(?!x)' })).toEqual(
      expect.stringContaining('pattern "^(?!x)" is not supported: backreferences and lookaround'),
    );
  });
});
