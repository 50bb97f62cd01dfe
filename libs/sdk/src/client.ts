import { randomUUID } from 'node:crypto';
import type { RunEventDoc } from '@openwop/contracts';
import { apiErrorFrom, OpenWopNetworkError } from './errors';
import type {
  ClientOptions,
  ConversationPage,
  ConversationSummary,
  CreateRunRequest,
  CreateRunResponse,
  ForkRunRequest,
  ForkRunResponse,
  InterruptPage,
  ListInterruptsQuery,
  ListRunsQuery,
  PollResponse,
  ResolveResult,
  RunPage,
  RunSnapshotBody,
  RunStreamEvent,
  StreamEventsOptions,
  TokenInspection,
} from './client.types';
import { streamRunEvents } from './run-event.stream';
import { tokenFromCallbackUrl } from './tokens';

const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/**
 * A typed client of the OpenWOP REST + SSE surface this host serves (`rest-endpoints.md`, plus the
 * host's `GET /v1/runs`, `GET /v1/interrupts` and the RFC 0005 conversation routes).
 *
 * Every method throws a subclass of {@link OpenWopApiError} carrying the spec error code
 * (`OpenWopConflictError` for `interrupt_already_resolved`, …), or {@link OpenWopNetworkError}
 * when the host does not answer.
 *
 * @example
 * ```ts
 * const client = new OpenWopClient({ baseUrl: 'http://127.0.0.1:8080', apiKey });
 * const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
 * for await (const e of client.streamEvents(runId)) console.log(e.event);
 * ```
 */
export class OpenWopClient {
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  // ----------------------------------------------------------------- discovery and health
  discovery(): Promise<Record<string, unknown>> {
    return this.call('GET', '/.well-known/openwop');
  }

  openapi(): Promise<Record<string, unknown>> {
    return this.call('GET', '/v1/openapi.json');
  }

  healthz(): Promise<{ status: string }> {
    return this.call('GET', '/healthz');
  }

  readyz(): Promise<{ status: string; checks: Record<string, string> }> {
    return this.call('GET', '/readyz');
  }

  /** `GET /metrics`: the Prometheus exposition text. */
  async metrics(): Promise<string> {
    const res = await this.send(new URL('/metrics', this.options.baseUrl), {
      headers: this.headers({ accept: 'text/plain' }),
    });
    if (!res.ok) throw await errorOf(res);
    return res.text();
  }

  // ----------------------------------------------------------------- workflows
  /** `POST /v1/workflows`: registers (or replaces) a definition for the caller's tenant. */
  registerWorkflow(definition: Record<string, unknown>): Promise<{ workflowId: string }> {
    return this.call('POST', '/v1/workflows', definition);
  }

  /** `POST /v1/workflows` with a YAML body (`Content-Type: application/yaml`), as written by its author. */
  async registerWorkflowYaml(yaml: string): Promise<{ workflowId: string }> {
    const res = await this.send(new URL('/v1/workflows', this.options.baseUrl), {
      method: 'POST',
      headers: this.headers({ accept: 'application/json', 'content-type': 'application/yaml' }),
      body: yaml,
    });
    if (!res.ok) throw await errorOf(res);
    return (await res.json()) as { workflowId: string };
  }

  getWorkflow(workflowId: string): Promise<Record<string, unknown>> {
    return this.call('GET', `/v1/workflows/${enc(workflowId)}`);
  }

  // ----------------------------------------------------------------- runs
  createRun(body: CreateRunRequest, options: { idempotencyKey?: string } = {}): Promise<CreateRunResponse> {
    return this.call(
      'POST',
      '/v1/runs',
      body,
      options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {},
    );
  }

  getRun(runId: string): Promise<RunSnapshotBody> {
    return this.call('GET', `/v1/runs/${enc(runId)}`);
  }

  /** `GET /v1/runs`: the tenant's runs, newest first, by opaque cursor. */
  listRuns(query: ListRunsQuery = {}): Promise<RunPage> {
    return this.call('GET', `/v1/runs${qs(query)}`);
  }

  cancelRun(runId: string, reason?: string): Promise<{ runId: string; status: string }> {
    return this.call('POST', `/v1/runs/${enc(runId)}/cancel`, reason ? { reason } : {});
  }

  /** `POST /v1/runs/{runId}:fork` (replay.md). */
  forkRun(runId: string, body: ForkRunRequest): Promise<ForkRunResponse> {
    return this.call('POST', `/v1/runs/${enc(runId)}:fork`, body);
  }

  // ----------------------------------------------------------------- events
  /** The run's whole log as JSON (`Accept: application/json`). */
  async listEvents(
    runId: string,
    options: { after?: number; streamMode?: string } = {},
  ): Promise<RunEventDoc[]> {
    const body = await this.call<{ events: RunEventDoc[] }>(
      'GET',
      `/v1/runs/${enc(runId)}/events${qs(options)}`,
    );
    return body.events;
  }

  pollEvents(
    runId: string,
    options: { after?: number; timeoutMs?: number; streamMode?: string } = {},
  ): Promise<PollResponse> {
    return this.call('GET', `/v1/runs/${enc(runId)}/events/poll${qs(options)}`);
  }

  /**
   * The run's events as they happen (SSE), until its terminal event; reconnects with
   * `Last-Event-ID` when the connection drops. See {@link streamRunEvents}.
   */
  streamEvents(runId: string, options: StreamEventsOptions = {}): AsyncGenerator<RunStreamEvent> {
    const path = `/v1/runs/${enc(runId)}/events${qs({ streamMode: options.streamMode })}`;
    return streamRunEvents(
      {
        open: async (lastEventId, signal) => {
          const headers = this.headers({ accept: 'text/event-stream' });
          if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
          const res = await this.send(new URL(path, this.options.baseUrl), { headers, signal });
          if (!res.ok) throw await errorOf(res);
          return res;
        },
        isTerminal: async () => TERMINAL_STATUSES.has((await this.getRun(runId)).status),
      },
      options,
    );
  }

  // ----------------------------------------------------------------- interrupts
  /**
   * `POST /v1/runs/{runId}/interrupts/{nodeId}` with `{resumeValue}`: an approval `{action, …}`,
   * clarification `{answers}`, external event `{eventPayload, correlation?}`, …
   */
  resolveInterrupt(runId: string, nodeId: string, resumeValue: unknown): Promise<ResolveResult> {
    return this.call('POST', `/v1/runs/${enc(runId)}/interrupts/${enc(nodeId)}`, { resumeValue });
  }

  /** The legacy `POST /v1/runs/{runId}/approvals/{nodeId}` (`{decision: approved|rejected, feedback?}`). */
  resolveApproval(
    runId: string,
    nodeId: string,
    body: { decision: 'approved' | 'rejected'; feedback?: string } & Record<string, unknown>,
  ): Promise<ResolveResult> {
    return this.call('POST', `/v1/runs/${enc(runId)}/approvals/${enc(nodeId)}`, body);
  }

  /** `GET /v1/interrupts`: the tenant's pending interrupts across runs. */
  listInterrupts(query: ListInterruptsQuery = {}): Promise<InterruptPage> {
    return this.call('GET', `/v1/interrupts${qs(query)}`);
  }

  /** `GET /v1/interrupts/{token}` without an API key; accepts a token or its `callbackUrl`. */
  inspectToken(tokenOrUrl: string): Promise<TokenInspection> {
    return this.call('GET', this.tokenPath(tokenOrUrl), undefined, {}, false);
  }

  /** `POST /v1/interrupts/{token}` with `{resumeValue}`, without an API key; accepts a token or its `callbackUrl`. */
  resolveByToken(tokenOrUrl: string, resumeValue: unknown): Promise<ResolveResult> {
    return this.call('POST', this.tokenPath(tokenOrUrl), { resumeValue }, {}, false);
  }

  // ----------------------------------------------------------------- conversations (RFC 0005)
  /** `POST /v1/runs/{runId}:resolveInterrupt`: one conversation operation (`exchange`, `close`). */
  conversationOperation(
    runId: string,
    body: { nodeId: string; operation: 'exchange' | 'close'; turn?: unknown; outcome?: unknown },
  ): Promise<ResolveResult> {
    return this.call('POST', `/v1/runs/${enc(runId)}:resolveInterrupt`, body);
  }

  /** Sends one user turn; the agent's reply follows as `ai.message.chunk` and `conversation.exchanged` events. */
  sendTurn(
    runId: string,
    nodeId: string,
    content: string,
    options: { messageId?: string; from?: string } = {},
  ): Promise<ResolveResult> {
    const turn = {
      messageId: options.messageId ?? randomUUID(),
      from: options.from ?? 'user',
      role: 'user',
      content,
    };
    return this.conversationOperation(runId, { nodeId, operation: 'exchange', turn });
  }

  /** Closes the conversation; the node resumes with the last agent reply as its output. */
  closeConversation(
    runId: string,
    nodeId: string,
    options: { outcome?: unknown } = {},
  ): Promise<ResolveResult> {
    return this.conversationOperation(runId, {
      nodeId,
      operation: 'close',
      ...(options.outcome !== undefined ? { outcome: options.outcome } : {}),
    });
  }

  async listConversations(runId: string): Promise<ConversationSummary[]> {
    return (
      await this.call<{ conversations: ConversationSummary[] }>('GET', `/v1/runs/${enc(runId)}/conversations`)
    ).conversations;
  }

  getConversation(
    runId: string,
    conversationId: string,
    query: { after?: number; limit?: number } = {},
  ): Promise<ConversationPage> {
    return this.call('GET', `/v1/runs/${enc(runId)}/conversations/${enc(conversationId)}${qs(query)}`);
  }

  // ----------------------------------------------------------------- transport
  /**
   * Sends a request and parses the JSON answer. `path` may be absolute (a `callbackUrl`).
   *
   * @throws {@link OpenWopApiError} (a subclass by status) for non-2xx answers; {@link OpenWopNetworkError} when nothing answers.
   */
  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    authenticate = true,
  ): Promise<T> {
    const headers = authenticate
      ? this.headers({ accept: 'application/json', ...extraHeaders })
      : { accept: 'application/json', ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.send(new URL(path, this.options.baseUrl), {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw await errorOf(res);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return { ...extra, ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) };
  }

  private async send(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchImpl(url, init);
    } catch (error) {
      if ((error as { name?: string }).name === 'AbortError') throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new OpenWopNetworkError(
        `${url.origin} did not answer (${cause?.code ?? cause?.message ?? String(error)}).`,
        error,
      );
    }
  }

  private tokenPath(tokenOrUrl: string): string {
    if (/^https?:\/\//.test(tokenOrUrl)) return tokenOrUrl;
    return `/v1/interrupts/${enc(tokenFromCallbackUrl(tokenOrUrl))}`;
  }
}

async function errorOf(res: Response): Promise<Error> {
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return apiErrorFrom(res.status, body, res.statusText, res.headers.get('retry-after'));
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function qs(query: object): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
