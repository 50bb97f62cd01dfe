import { collect } from './collect.util';
import type { ChatChunk } from './llm-provider.port';

async function* stream(...chunks: ChatChunk[]): AsyncGenerator<ChatChunk> {
  yield* chunks;
}

describe('collect', () => {
  it('returns the text, finish reason and usage of the done chunk', async () => {
    const usage = { promptTokens: 1, completionTokens: 2 };
    await expect(
      collect(
        stream({ type: 'delta', text: 'a' }, { type: 'done', text: 'a', finishReason: 'length', usage }),
      ),
    ).resolves.toEqual({ text: 'a', finishReason: 'length', usage });
  });

  it('fails with protocol when the stream ends without done', async () => {
    await expect(collect(stream({ type: 'delta', text: 'a' }))).rejects.toMatchObject({ code: 'protocol' });
  });

  it('passes on what the stream throws', async () => {
    async function* failing(): AsyncGenerator<ChatChunk> {
      yield { type: 'delta', text: 'a' };
      throw new Error('boom');
    }
    await expect(collect(failing())).rejects.toThrow('boom');
  });
});
