import { errorBodyMessage, interpretCompletionBody, interpretStreamData } from './openai-completion.mapper';

describe('interpretStreamData', () => {
  it('reads the delta text of choice 0', () => {
    const data = JSON.stringify({
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }],
    });
    expect(interpretStreamData(data)).toEqual({ kind: 'chunk', text: 'Hi' });
  });

  it('reads the finish reason and the usage chunk (empty choices)', () => {
    expect(
      interpretStreamData(JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })),
    ).toEqual({
      kind: 'chunk',
      text: '',
      finishReason: 'length',
    });
    const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
    expect(interpretStreamData(JSON.stringify({ choices: [], usage }))).toEqual({
      kind: 'chunk',
      text: '',
      usage: { promptTokens: 12, completionTokens: 3 },
    });
  });

  it('prefers the choice with index 0 and ignores null content', () => {
    const data = JSON.stringify({
      choices: [
        { index: 1, delta: { content: 'other' } },
        { index: 0, delta: { content: null } },
      ],
    });
    expect(interpretStreamData(data)).toEqual({ kind: 'chunk', text: '' });
  });

  it('recognises [DONE]', () => {
    expect(interpretStreamData('[DONE]')).toEqual({ kind: 'end' });
    expect(interpretStreamData(' [DONE] ')).toEqual({ kind: 'end' });
  });

  it('rejects data that is not a JSON object as a protocol error', () => {
    expect(() => interpretStreamData('not json')).toThrow(expect.objectContaining({ code: 'protocol' }));
    expect(() => interpretStreamData('[1,2]')).toThrow(expect.objectContaining({ code: 'protocol' }));
  });

  it('maps an error object streamed mid-way', () => {
    expect(() =>
      interpretStreamData(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })),
    ).toThrow(
      expect.objectContaining({ code: 'unavailable', message: expect.stringContaining('overloaded') }),
    );
    expect(() =>
      interpretStreamData(JSON.stringify({ error: { message: 'slow down', code: 'rate_limit_exceeded' } })),
    ).toThrow(expect.objectContaining({ code: 'rate_limited' }));
  });
});

describe('interpretCompletionBody', () => {
  it('reads message content, finish reason and usage', () => {
    const body = {
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Whole reply' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    };
    expect(interpretCompletionBody(JSON.stringify(body))).toEqual({
      text: 'Whole reply',
      finishReason: 'stop',
      usage: { promptTokens: 5, completionTokens: 2 },
    });
  });

  it('rejects a body without choices[0].message', () => {
    expect(() => interpretCompletionBody('{"choices":[]}')).toThrow(
      expect.objectContaining({ code: 'protocol' }),
    );
  });
});

describe('errorBodyMessage', () => {
  it('finds the message of the usual error shapes', () => {
    expect(errorBodyMessage('{"error":{"message":"Invalid model"}}')).toBe('Invalid model');
    expect(errorBodyMessage('{"error":"plain"}')).toBe('plain');
    expect(errorBodyMessage('{"detail":"Not Found"}')).toBe('Not Found');
    expect(errorBodyMessage('<html>')).toBeUndefined();
  });
});
