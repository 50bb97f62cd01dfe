import { LlmConfigurationError } from '../llm-provider.error';
import { compileScript, parseScriptText } from './script.parser';

describe('compileScript', () => {
  it('fills in defaults', () => {
    const script = compileScript({ replies: [{ reply: 'x' }] });
    expect(script).toMatchObject({ tokenDelayMs: 0, chunkSize: 'word', fallback: undefined });
    expect(script.rows[0]?.replies).toEqual(['x']);
  });

  it('matches substrings case-insensitively and /regex/flags as regular expressions', () => {
    const [substring, regex, global] = compileScript({
      replies: [
        { match: 'Budget', reply: 'a' },
        { match: '/^hi\\b/i', reply: 'b' },
        { match: '/x/g', reply: 'c' },
      ],
    }).rows;
    expect(substring?.matches('what about the budget?')).toBe(true);
    expect(substring?.matches('what about time?')).toBe(false);
    expect(regex?.matches('Hi there')).toBe(true);
    expect(regex?.matches('oh hi')).toBe(false);
    // The g flag is dropped: repeated tests give the same answer.
    expect([global?.matches('x'), global?.matches('x'), global?.matches('x')]).toEqual([true, true, true]);
  });

  it.each([
    [null, /must be an object/],
    [{}, /"replies" must be a list/],
    [{ replies: ['x'] }, /replies\[0\]: must be an object/],
    [{ replies: [{}] }, /replies\[0\]: "reply" must be a string or a non-empty list/],
    [{ replies: [{ reply: [] }] }, /non-empty list/],
    [{ replies: [{ reply: 'x', agentId: 3 }] }, /"agentId"/],
    [{ replies: [{ reply: 'x', match: 1 }] }, /"match" must be a string/],
    [{ replies: [{ reply: 'x', match: '/(/' }] }, /not a valid regular expression/],
    [{ replies: [], default: 1 }, /"default"/],
    [{ replies: [], tokenDelayMs: -1 }, /"tokenDelayMs"/],
    [{ replies: [], chunkSize: 0 }, /"chunkSize"/],
    [{ replies: [], chunkSize: 'line' }, /"chunkSize"/],
  ])('rejects %j', (value, message) => {
    expect(() => compileScript(value, 'demo.yaml')).toThrow(LlmConfigurationError);
    expect(() => compileScript(value, 'demo.yaml')).toThrow(message);
    expect(() => compileScript(value, 'demo.yaml')).toThrow(/^demo\.yaml: /);
  });
});

describe('parseScriptText', () => {
  it('reads JSON for .json and YAML otherwise', () => {
    expect(parseScriptText('{"replies":[{"reply":"j"}]}', 'a.json')).toEqual({ replies: [{ reply: 'j' }] });
    expect(parseScriptText('replies:\n  - match: /hi/i\n    reply: y\n', 'a.yaml')).toEqual({
      replies: [{ match: '/hi/i', reply: 'y' }],
    });
  });

  it('names the source when the text cannot be parsed', () => {
    expect(() => parseScriptText('{', 'broken.json')).toThrow(/^broken\.json cannot be parsed/);
    expect(() => parseScriptText('a: [', 'broken.yaml')).toThrow(LlmConfigurationError);
  });
});
