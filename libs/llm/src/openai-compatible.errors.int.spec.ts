import { inspect } from 'node:util';
import { collect } from './collect.util';
import { LlmProviderError } from './llm-provider.error';
import type { ChatRequest } from './llm-provider.port';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import type { OpenAiCompatibleConfig } from './openai/openai-compatible.config';
import {
  jsonReply,
  OpenAiTestServer,
  sseChunk,
  streamReply,
  type Responder,
} from './testing/openai-test.server';
import { waitFor } from './testing/wait-for.util';

// A real HTTP server on 127.0.0.1 plays the OpenAI-compatible endpoint, failing on purpose.
let server: OpenAiTestServer;
beforeAll(async () => {
  server = await OpenAiTestServer.start();
});
afterAll(() => server.stop());

const API_KEY = 'sk-secret-do-not-leak-42';
const request: ChatRequest = { messages: [{ role: 'user', content: 'Hi' }] };

function provider(overrides: Partial<OpenAiCompatibleConfig> = {}): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'test-model',
    apiKey: API_KEY,
    timeoutMs: 5_000,
    maxRetries: 0,
    retryBaseDelayMs: 1,
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<LlmProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmProviderError);
  return error as LlmProviderError;
}

/** A responder that never answers: only the client can end the exchange. */
const silent: Responder = () => undefined;

/** A responder that sends headers and one delta, then stalls. */
const stallAfterFirstDelta: Responder = (res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(sseChunk('first'));
};

describe('OpenAiCompatibleProvider error mapping against a real HTTP server', () => {
  it.each([
    [401, 'unauthorized', false],
    [403, 'unauthorized', false],
    [429, 'rate_limited', true],
    [400, 'bad_request', false],
    [404, 'bad_request', false],
    [422, 'bad_request', false],
    [500, 'unavailable', true],
    [503, 'unavailable', true],
  ] as const)('maps HTTP %i to %s (retryable %s)', async (status, code, retryable) => {
    server.respond(jsonReply(status, { error: { message: `server says ${status}` } }));
    const error = await failure(collect(provider().complete(request)));
    expect(error).toMatchObject({ code, retryable, status });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain(`server says ${status}`);
    expect(server.requests).toHaveLength(1);
  });

  it('never retries a non-retryable status', async () => {
    server.respond(jsonReply(400, { error: { message: 'bad model' } }));
    await failure(collect(provider({ maxRetries: 3 }).complete(request)));
    expect(server.requests).toHaveLength(1);
  });

  it('maps a refused connection to unavailable', async () => {
    const closed = await OpenAiTestServer.start();
    const baseUrl = closed.baseUrl;
    await closed.stop();
    const error = await failure(collect(provider({ baseUrl }).complete(request)));
    expect(error).toMatchObject({ code: 'unavailable', retryable: true });
    expect(error.message).toMatch(/cannot talk to http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });

  it('retries a 503 and then streams the answer', async () => {
    server.respond(jsonReply(503, { error: { message: 'warming up' } }), streamReply(['after ', 'retry']));
    await expect(collect(provider({ maxRetries: 2 }).complete(request))).resolves.toMatchObject({
      text: 'after retry',
    });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body).toEqual(server.requests[0]?.body);
  });

  it('gives up after maxRetries retries (the default is 2)', async () => {
    server.respond(jsonReply(502, { error: { message: 'bad gateway' } }));
    const client = new OpenAiCompatibleProvider({ baseUrl: server.baseUrl, model: 'm', retryBaseDelayMs: 1 });
    await expect(collect(client.complete(request))).rejects.toMatchObject({
      code: 'unavailable',
      status: 502,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('waits what Retry-After asks before retrying a 429', async () => {
    server.respond(
      jsonReply(429, { error: { message: 'slow down' } }, { 'retry-after': '1' }),
      streamReply(['ok']),
    );
    const started = performance.now();
    await expect(collect(provider({ maxRetries: 1 }).complete(request))).resolves.toMatchObject({
      text: 'ok',
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it('bounds the Retry-After wait by maxRetryDelayMs and reports it on the error', async () => {
    server.respond(jsonReply(429, { error: { message: 'come back in an hour' } }, { 'retry-after': '3600' }));
    const started = performance.now();
    const error = await failure(collect(provider({ maxRetries: 1, maxRetryDelayMs: 50 }).complete(request)));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 3_600_000 });
    expect(server.requests).toHaveLength(2);
  });

  it('times out when the server sends nothing, closing the connection', async () => {
    server.respond(silent);
    const started = performance.now();
    const error = await failure(collect(provider({ timeoutMs: 200 }).complete(request)));
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    expect(error.message).toContain('sent nothing for 200 ms');
    expect(performance.now() - started).toBeLessThan(3_000);
    await waitFor(() => server.closedConnections === 1, 'the server saw the connection closed');
  });

  it('retries a timeout before the first byte', async () => {
    server.respond(silent, streamReply(['second try']));
    await expect(
      collect(provider({ timeoutMs: 200, maxRetries: 1 }).complete(request)),
    ).resolves.toMatchObject({
      text: 'second try',
    });
    expect(server.requests).toHaveLength(2);
  });

  it('times out a stream that stalls, without retrying after the first byte', async () => {
    server.respond(stallAfterFirstDelta, streamReply(['must not be asked']));
    const deltas: string[] = [];
    const run = (async () => {
      for await (const chunk of provider({ timeoutMs: 200, maxRetries: 2 }).complete(request)) {
        if (chunk.type === 'delta') deltas.push(chunk.text);
      }
    })();
    await expect(run).rejects.toMatchObject({ code: 'timeout' });
    expect(deltas).toEqual(['first']);
    expect(server.requests).toHaveLength(1);
    await waitFor(() => server.closedConnections === 1, 'the server saw the connection closed');
  });

  it('aborts mid-stream: the caller gets aborted and the server sees the connection closed', async () => {
    server.respond(stallAfterFirstDelta);
    const controller = new AbortController();
    const run = (async () => {
      for await (const chunk of provider({ maxRetries: 2 }).complete(request, {
        signal: controller.signal,
      })) {
        if (chunk.type === 'delta') setTimeout(() => controller.abort(), 10);
      }
    })();
    await expect(run).rejects.toMatchObject({ code: 'aborted', retryable: false });
    await waitFor(() => server.closedConnections === 1, 'the server saw the connection closed');
    expect(server.requests).toHaveLength(1);
  });

  it('aborts while waiting for the response and during a retry delay', async () => {
    server.respond(silent);
    const waiting = new AbortController();
    const run = collect(provider().complete(request, { signal: waiting.signal }));
    await waitFor(() => server.requests.length === 1, 'the request arrived');
    waiting.abort();
    await expect(run).rejects.toMatchObject({ code: 'aborted' });

    server.respond(jsonReply(503, {}, { 'retry-after': '60' }));
    const backingOff = new AbortController();
    const client = provider({ maxRetries: 1, maxRetryDelayMs: 60_000 });
    const retrying = collect(client.complete(request, { signal: backingOff.signal }));
    await waitFor(() => server.requests.length === 1, 'the first attempt was answered');
    const started = performance.now();
    backingOff.abort();
    await expect(retrying).rejects.toMatchObject({ code: 'aborted' });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects at once when the signal already aborted, without a request', async () => {
    server.respond(streamReply(['x']));
    await expect(
      collect(provider().complete(request, { signal: AbortSignal.abort() })),
    ).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('never puts the API key in an error, even when the server echoes it', async () => {
    const echo: Responder = (res, sent) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `invalid key: ${String(sent.headers.authorization)}` } }));
    };
    const echoMidStream: Responder = (res, sent) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `data: ${JSON.stringify({ error: { message: `bad ${String(sent.headers.authorization)}` } })}\n\n`,
      );
    };
    const closed = await OpenAiTestServer.start();
    const refusedUrl = closed.baseUrl;
    await closed.stop();
    const errors: LlmProviderError[] = [];
    for (const responder of [echo, echoMidStream, silent]) {
      server.respond(responder);
      errors.push(await failure(collect(provider({ timeoutMs: 200 }).complete(request))));
    }
    errors.push(await failure(collect(provider({ baseUrl: refusedUrl }).complete(request))));
    expect(errors.map((e) => e.code)).toEqual(['unauthorized', 'unavailable', 'timeout', 'unavailable']);
    expect(errors[0]?.message).toContain('invalid key: Bearer [redacted]');
    for (const error of errors) {
      expect(error.message).not.toContain(API_KEY);
      expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
      expect(JSON.stringify(error)).not.toContain(API_KEY);
    }
  });
});
