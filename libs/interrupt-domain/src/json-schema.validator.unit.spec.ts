import { InvalidResumeValue } from './interrupt.errors';
import { given, opened, resolveWith } from './interrupt.given.spec';
import { schemaViolations } from './json-schema.validator';

// On a backtracking engine this answer takes ~2^40 steps: the test would hang until jest's timeout.
const CATASTROPHIC = '^(a+)+$';
const EVIL = 'a'.repeat(40) + '!';

describe('workflow-supplied schemas run on a linear-time engine', () => {
  it('checks a catastrophic resumeSchema pattern correctly', () => {
    const gate = opened(
      'custom',
      { customKind: 'x' },
      { resumeSchema: { type: 'string', pattern: CATASTROPHIC } },
    );
    expect(() => given(gate).when(resolveWith(EVIL)).next()).toThrow(InvalidResumeValue);
    expect(given(gate).when(resolveWith('aaaa')).next()).toMatchObject({ status: 'resolved' });
  });

  it('checks a catastrophic clarification question pattern correctly', () => {
    const gate = opened('clarification', {
      questions: [{ id: 'q', question: 'a?', schema: { type: 'string', pattern: CATASTROPHIC } }],
    });
    expect(() =>
      given(gate)
        .when(resolveWith({ answers: { q: EVIL } }))
        .next(),
    ).toThrow(/\/answers\/q must match pattern/);
    expect(
      given(gate)
        .when(resolveWith({ answers: { q: 'aa' } }))
        .next(),
    ).toMatchObject({ status: 'resolved' });
  });

  it('refuses an answer against a schema with a backreference, naming the pattern', () => {
    const check = () => schemaViolations({ type: 'string', pattern: '^(a)\\1$' }, 'aa', '/v');
    expect(check).toThrow(InvalidResumeValue);
    try {
      check();
    } catch (e) {
      expect((e as InvalidResumeValue).violations).toEqual([
        {
          path: '/v',
          message: expect.stringContaining(
            'pattern "^(a)\\\\1$" is not supported: backreferences and lookaround',
          ) as string,
        },
      ]);
    }
  });
});
