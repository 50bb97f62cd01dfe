import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the test server received, with its JSON body parsed. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** Answers one request; it may stream, stall or close as the test needs. */
export type Responder = (response: ServerResponse, request: RecordedRequest) => void | Promise<void>;

/**
 * A real HTTP server on 127.0.0.1 (an ephemeral port) that plays an OpenAI-compatible endpoint
 * for integration tests. Request n is answered by responder n (the last one answers the rest).
 * It records every request and counts responses the client closed before they were finished.
 *
 * @internal test support
 */
export class OpenAiTestServer {
  readonly requests: RecordedRequest[] = [];
  private responders: Responder[] = [];
  private closedEarly = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OpenAiTestServer> {
    const server = createServer();
    const instance = new OpenAiTestServer(server);
    server.on('request', (req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        const request: RecordedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        };
        const index = instance.requests.push(request) - 1;
        res.on('close', () => {
          if (!res.writableFinished) instance.closedEarly++;
        });
        const responder = instance.responders[Math.min(index, instance.responders.length - 1)];
        if (!responder) res.writeHead(500).end('no responder');
        else void Promise.resolve(responder(res, request)).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  /** The base URL a provider is configured with (`/chat/completions` is appended by the client). */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Responses the client closed (abort, timeout, early exit) before the server finished them. */
  get closedConnections(): number {
    return this.closedEarly;
  }

  /** Sets the responders of the next requests and forgets earlier requests. */
  respond(...responders: Responder[]): void {
    this.responders = responders;
    this.requests.length = 0;
    this.closedEarly = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One `chat.completion.chunk` as an SSE `data:` event. */
export function sseChunk(content: string | undefined, finishReason: string | null = null): string {
  const delta = content === undefined ? {} : { content };
  const chunk = {
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The usage chunk a server sends last when `stream_options.include_usage` is set. */
export function sseUsage(promptTokens: number, completionTokens: number): string {
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [], usage })}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';

/** A responder streaming `pieces` as deltas, then `finish_reason: stop`, optional usage and `[DONE]`. */
export function streamReply(pieces: readonly string[], usage?: [number, number]): Responder {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of pieces) res.write(sseChunk(piece));
    res.write(sseChunk(undefined, 'stop'));
    if (usage) res.write(sseUsage(...usage));
    res.end(SSE_DONE);
  };
}

/** A responder answering `status` with a JSON body and optional headers. */
export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}
