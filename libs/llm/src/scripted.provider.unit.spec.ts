import { collect } from './collect.util';
import type { ChatChunk, ChatRequest } from './llm-provider.port';
import { ScriptedProvider } from './scripted.provider';
import type { Script } from './scripted/script.types';

function ask(content: string, agentId?: string): ChatRequest {
  return {
    messages: [
      { role: 'system', content: 'You are on a panel.' },
      { role: 'user', content },
    ],
    ...(agentId ? { metadata: { agentId } } : {}),
  };
}

async function chunksOf(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const panel: Script = {
  default: 'No comment.',
  replies: [
    { agentId: 'critic', match: '/budget|cost/i', reply: 'Too expensive.' },
    { agentId: 'critic', reply: ['First objection.', 'Second objection.'] },
    { match: 'hello', reply: 'Hello to you.' },
    { agentId: 'optimist', reply: ['Great!', 'Even better!', ''] },
  ],
};

describe('ScriptedProvider', () => {
  it('picks the first row whose agent and match apply, else the default', async () => {
    const provider = new ScriptedProvider(panel);
    expect((await collect(provider.complete(ask('What about the BUDGET?', 'critic')))).text).toBe(
      'Too expensive.',
    );
    expect((await collect(provider.complete(ask('hello all', 'optimist')))).text).toBe('Hello to you.');
    expect((await collect(provider.complete(ask('hello all')))).text).toBe('Hello to you.');
    expect((await collect(provider.complete(ask('anything', 'stranger')))).text).toBe('No comment.');
  });

  it('matches the last user message, not earlier ones or the system prompt', async () => {
    const provider = new ScriptedProvider({
      replies: [{ match: 'budget', reply: 'money' }],
      default: 'other',
    });
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'budget' },
        { role: 'user', content: 'budget?' },
        { role: 'assistant', content: 'budget!' },
        { role: 'user', content: 'and the schedule?' },
      ],
    };
    expect((await collect(provider.complete(request))).text).toBe('other');
  });

  it('cycles a reply list separately for each agent', async () => {
    const provider = new ScriptedProvider({ replies: [{ reply: ['one', 'two', 'three'] }] });
    const replies: string[] = [];
    for (const agent of ['a', 'a', 'b', 'a', 'b', 'a']) {
      replies.push((await collect(provider.complete(ask('go', agent)))).text);
    }
    expect(replies).toEqual(['one', 'two', 'one', 'three', 'two', 'one']);
  });

  it('streams an empty reply as done only', async () => {
    const provider = new ScriptedProvider({ replies: [{ reply: '' }] });
    expect(await chunksOf(provider.complete(ask('hi', 'x')))).toEqual([
      { type: 'done', text: '', finishReason: 'stop', usage: { promptTokens: 6, completionTokens: 0 } },
    ]);
  });

  it('streams words by default, then done with the full text and a word count', async () => {
    const provider = new ScriptedProvider({ replies: [{ reply: 'Three small words' }] });
    expect(await chunksOf(provider.complete(ask('hi')))).toEqual([
      { type: 'delta', text: 'Three ' },
      { type: 'delta', text: 'small ' },
      { type: 'delta', text: 'words' },
      {
        type: 'done',
        text: 'Three small words',
        finishReason: 'stop',
        usage: { promptTokens: 6, completionTokens: 3 },
      },
    ]);
  });

  it('chunks by character or size, and options override the script', async () => {
    const script: Script = { chunkSize: 'char', replies: [{ reply: 'abcde' }] };
    const deltas = async (provider: ScriptedProvider) =>
      (await chunksOf(provider.complete(ask('x')))).flatMap((c) => (c.type === 'delta' ? [c.text] : []));
    expect(await deltas(new ScriptedProvider(script))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await deltas(new ScriptedProvider(script, { chunkSize: 2 }))).toEqual(['ab', 'cd', 'e']);
  });

  it('fails with bad_request when no row applies and there is no default', async () => {
    const provider = new ScriptedProvider({ replies: [{ agentId: 'a', reply: 'x' }] });
    await expect(collect(provider.complete(ask('hi', 'b')))).rejects.toMatchObject({
      name: 'LlmProviderError',
      code: 'bad_request',
      retryable: false,
      message: expect.stringContaining('agent "b"'),
    });
  });

  it('is deterministic: the same requests to a new provider give the same chunks', async () => {
    const run = async () => {
      const provider = new ScriptedProvider(panel, { chunkSize: 3 });
      const all: ChatChunk[][] = [];
      for (const [content, agent] of [
        ['cost?', 'critic'],
        ['why', 'critic'],
        ['why', 'optimist'],
        ['why', 'critic'],
        ['hello', 'critic'],
        ['why', 'optimist'],
        ['why', 'optimist'],
        ['why', 'optimist'],
      ] as const) {
        all.push(await chunksOf(provider.complete(ask(content, agent))));
      }
      return all;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(
      first.map((chunks) => chunks.at(-1)).map((done) => (done?.type === 'done' ? done.text : '?')),
    ).toEqual([
      'Too expensive.',
      'First objection.',
      'Great!',
      'Second objection.',
      'First objection.',
      'Even better!',
      '',
      'Great!',
    ]);
  });

  describe('with a token delay', () => {
    const slow = new ScriptedProvider({ tokenDelayMs: 30, replies: [{ reply: 'a b c d e f g h i j' }] });

    it('waits before each chunk', async () => {
      const started = performance.now();
      const { text } = await collect(slow.complete(ask('x')));
      expect(text).toBe('a b c d e f g h i j');
      expect(performance.now() - started).toBeGreaterThanOrEqual(10 * 30 - 15);
    });

    it('stops promptly with aborted when the signal aborts mid-reply', async () => {
      const controller = new AbortController();
      const seen: string[] = [];
      const started = performance.now();
      const run = (async () => {
        for await (const chunk of slow.complete(ask('x'), { signal: controller.signal })) {
          if (chunk.type === 'delta') seen.push(chunk.text);
          if (seen.length === 2) controller.abort();
        }
      })();
      await expect(run).rejects.toMatchObject({ code: 'aborted', retryable: false });
      expect(seen).toEqual(['a ', 'b ']);
      expect(performance.now() - started).toBeLessThan(10 * 30);
    });

    it('rejects at once when the signal already aborted', async () => {
      await expect(collect(slow.complete(ask('x'), { signal: AbortSignal.abort() }))).rejects.toMatchObject({
        code: 'aborted',
      });
    });

    it('aborts during the wait for a chunk, not after it', async () => {
      const provider = new ScriptedProvider({ tokenDelayMs: 60_000, replies: [{ reply: 'never' }] });
      const controller = new AbortController();
      const run = collect(provider.complete(ask('x'), { signal: controller.signal }));
      setTimeout(() => controller.abort(), 20);
      const started = performance.now();
      await expect(run).rejects.toMatchObject({ code: 'aborted' });
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });
});
