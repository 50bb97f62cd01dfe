import { collect } from './collect.util';
import type { ChatChunk, ChatRequest } from './llm-provider.port';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import type { OpenAiCompatibleConfig } from './openai/openai-compatible.config';
import {
  jsonReply,
  OpenAiTestServer,
  SSE_DONE,
  sseChunk,
  sseUsage,
  streamReply,
} from './testing/openai-test.server';
import { waitFor } from './testing/wait-for.util';

// A real HTTP server on 127.0.0.1 plays the OpenAI-compatible endpoint.
let server: OpenAiTestServer;
beforeAll(async () => {
  server = await OpenAiTestServer.start();
});
afterAll(() => server.stop());

function provider(overrides: Partial<OpenAiCompatibleConfig> = {}): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'test-model',
    timeoutMs: 5_000,
    ...overrides,
  });
}

const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello', name: 'host:alice.smith' },
  ],
};

async function chunksOf(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('OpenAiCompatibleProvider against a real HTTP server', () => {
  it('POSTs a streaming chat completion with the configured model, key and headers', async () => {
    server.respond(streamReply(['ok']));
    const client = provider({ apiKey: 'sk-test-123456', headers: { 'x-org': 'acme' } });
    await collect(client.complete({ ...request, temperature: 0.2, maxTokens: 64 }));
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(sent?.headers).toMatchObject({
      authorization: 'Bearer sk-test-123456',
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      'x-org': 'acme',
    });
    expect(sent?.body).toEqual({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello', name: 'host_alice_smith' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_tokens: 64,
    });
  });

  it('sends no authorization without a key, the request model over the default, no stream_options when disabled', async () => {
    server.respond(streamReply(['ok']));
    await collect(provider({ includeUsage: false }).complete({ ...request, model: 'other-model' }));
    const [sent] = server.requests;
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toMatchObject({ model: 'other-model', stream: true });
    expect(sent?.body).not.toHaveProperty('stream_options');
  });

  it('streams deltas in order, then done with the full text, finish reason and usage', async () => {
    server.respond(streamReply(['Hel', 'lo', ', ', 'world'], [9, 4]));
    expect(await chunksOf(provider().complete(request))).toEqual([
      { type: 'delta', text: 'Hel' },
      { type: 'delta', text: 'lo' },
      { type: 'delta', text: ', ' },
      { type: 'delta', text: 'world' },
      {
        type: 'done',
        text: 'Hello, world',
        finishReason: 'stop',
        usage: { promptTokens: 9, completionTokens: 4 },
      },
    ]);
  });

  it('hands each delta over while the server is still streaming', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    server.respond(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseChunk('first'));
      await released;
      res.end(sseChunk(' second', 'stop') + SSE_DONE);
    });
    const iterator = provider().complete(request)[Symbol.asyncIterator]();
    await expect(iterator.next()).resolves.toEqual({ done: false, value: { type: 'delta', text: 'first' } });
    release();
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { type: 'delta', text: ' second' },
    });
    await expect(iterator.next()).resolves.toMatchObject({ value: { type: 'done', text: 'first second' } });
  });

  it('reassembles events cut at every byte, with CRLF, comments and keep-alives between them', async () => {
    const wire = (
      ': connected\n\n' +
      sseChunk('Grüße ') +
      ':\n\n' +
      sseChunk('👋 aus') +
      'event: message\ndata: ' +
      JSON.stringify({ choices: [{ index: 0, delta: { content: ' Köln' }, finish_reason: 'stop' }] }) +
      '\n\n' +
      sseUsage(3, 4) +
      SSE_DONE
    ).replace(/\n/g, '\r\n');
    server.respond(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      for (const byte of Buffer.from(wire)) {
        await new Promise<void>((resolve) => res.write(Buffer.of(byte), () => resolve()));
      }
      res.end();
    });
    const chunks = await chunksOf(provider().complete(request));
    expect(
      chunks
        .filter((c) => c.type === 'delta')
        .map((c) => c.text)
        .join(''),
    ).toBe('Grüße 👋 aus Köln');
    expect(chunks.at(-1)).toEqual({
      type: 'done',
      text: 'Grüße 👋 aus Köln',
      finishReason: 'stop',
      usage: { promptTokens: 3, completionTokens: 4 },
    });
  });

  it('sends several events in one write, reports finish_reason length, and omits usage the server did not send', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseChunk('a') + sseChunk('b') + sseChunk(undefined, 'length') + SSE_DONE);
    });
    expect(await collect(provider().complete(request))).toEqual({
      text: 'ab',
      finishReason: 'length',
      usage: undefined,
    });
  });

  it('accepts a stream that closes after finish_reason without [DONE]', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseChunk('done early', 'stop'));
    });
    await expect(collect(provider().complete(request))).resolves.toMatchObject({ text: 'done early' });
  });

  it('fails with protocol when the stream closes before the completion finished', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseChunk('cut'));
    });
    await expect(collect(provider().complete(request))).rejects.toMatchObject({
      code: 'protocol',
      retryable: false,
    });
  });

  it('fails with protocol on a chunk that is not JSON', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {oops\n\n');
    });
    await expect(collect(provider().complete(request))).rejects.toMatchObject({ code: 'protocol' });
  });

  it('maps an error streamed mid-way', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseChunk('partial') + `data: ${JSON.stringify({ error: { message: 'model crashed' } })}\n\n`);
    });
    await expect(collect(provider().complete(request))).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('model crashed'),
    });
  });

  it('reads a non-streamed application/json answer as one delta and done', async () => {
    server.respond(
      jsonReply(200, {
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'All at once' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      }),
    );
    expect(await chunksOf(provider().complete(request))).toEqual([
      { type: 'delta', text: 'All at once' },
      {
        type: 'done',
        text: 'All at once',
        finishReason: 'stop',
        usage: { promptTokens: 7, completionTokens: 3 },
      },
    ]);
  });

  it('closes the connection when the consumer stops reading early', async () => {
    server.respond((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseChunk('first'));
      // never ends: only the client can close it
    });
    for await (const chunk of provider().complete(request)) {
      expect(chunk).toEqual({ type: 'delta', text: 'first' });
      break;
    }
    await waitFor(() => server.closedConnections === 1, 'the server saw the connection closed');
  });
});
