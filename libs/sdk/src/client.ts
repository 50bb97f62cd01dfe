import { randomUUID } from 'node:crypto';
import { apiErrorFrom, OpenWopNetworkError, OpenWopRunEndedError, OpenWopTimeoutError } from './errors';
import { TERMINAL_RUN_STATUSES, type RunEvent, type RunStatus } from './generated/run-events';
import type {
  ClientOptions,
  ConversationPage,
  ConversationSummary,
  CreateRunRequest,
  CreateRunResponse,
  ForkRunRequest,
  ForkRunResponse,
  InterruptKind,
  InterruptPage,
  ListInterruptsQuery,
  ListRunsQuery,
  PendingInterruptOf,
  PollResponse,
  ResolveResult,
  RunPage,
  RunSnapshotBody,
  RunStreamEvent,
  StreamEventsOptions,
  TokenInspection,
  WaitForInterruptOptions,
  WaitOptions,
} from './client.types';
import { streamRunEvents } from './run-event.stream';
import { tokenFromCallbackUrl } from './tokens';

const TERMINAL_STATUSES: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);
/** Default deadline of the wait helpers. */
const DEFAULT_WAIT_MS = 60_000;
/** Longest wait of one long poll (the host's maximum `timeoutMs`). */
const MAX_POLL_WAIT_MS = 30_000;

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
 * const gate = await client.waitForInterrupt(runId, { kind: 'approval' });
 * await client.resolveInterrupt(runId, gate.nodeId, { action: 'accept' });
 * const run = await client.waitForStatus(runId, ['completed']);
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
  createRun(
    body: CreateRunRequest,
    options: { idempotencyKey?: string | undefined } = {},
  ): Promise<CreateRunResponse> {
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
    options: { after?: number | undefined; streamMode?: string | undefined } = {},
  ): Promise<RunEvent[]> {
    const body = await this.call<{ events: RunEvent[] }>(
      'GET',
      `/v1/runs/${enc(runId)}/events${qs(options)}`,
    );
    return body.events;
  }

  /**
   * `GET /v1/runs/{runId}/events/poll`: the events after `after` (default: from the first); waits
   * up to `timeoutMs` (at most 30 000) for one when there is none yet.
   */
  pollEvents(
    runId: string,
    options: {
      after?: number | undefined;
      timeoutMs?: number | undefined;
      streamMode?: string | undefined;
      signal?: AbortSignal | undefined;
    } = {},
  ): Promise<PollResponse> {
    const { signal, ...query } = options;
    return this.request('GET', `/v1/runs/${enc(runId)}/events/poll${qs(query)}`, {
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * The run's events as they happen (SSE), until its terminal event; reconnects with
   * `Last-Event-ID` when the connection drops. Each frame is typed by `type` (a run event type,
   * `state.snapshot`, `ai.message.chunk`, or `unknown`). See {@link streamRunEvents}.
   */
  streamEvents(runId: string, options: StreamEventsOptions = {}): AsyncGenerator<RunStreamEvent> {
    const path = `/v1/runs/${enc(runId)}/events${qs({ streamMode: options.streamMode, bufferMs: options.bufferMs })}`;
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

  // ----------------------------------------------------------------- waiting
  /**
   * Waits until the run's status is one of `statuses` and returns its snapshot then. Long-polls the
   * event log (`/events/poll`) and reads the status after each change; no fixed sleeps.
   *
   * @throws {@link OpenWopRunEndedError} when the run ends in another status;
   *   {@link OpenWopTimeoutError} after `timeoutMs` (60 s by default); the signal's reason when
   *   `signal` aborts; {@link OpenWopApiError} as any call (e.g. `OpenWopNotFoundError`).
   */
  async waitForStatus(
    runId: string,
    statuses: RunStatus | readonly RunStatus[],
    options: WaitOptions = {},
  ): Promise<RunSnapshotBody> {
    const wanted: ReadonlySet<string> = new Set(typeof statuses === 'string' ? [statuses] : statuses);
    return this.waitOnRun(runId, `status ${[...wanted].join(' or ')}`, options, async (status) => {
      if (!wanted.has(status)) return undefined;
      // The snapshot is read after the poll: return it only if it still has a wanted status.
      const run = await this.getRun(runId);
      return wanted.has(run.status) ? run : undefined;
    });
  }

  /**
   * Waits until the run has a pending interrupt (of `nodeId` and `kind`, when given) and returns it
   * (`GET /v1/interrupts` row, `data` typed by `kind`); the oldest one when several match. Resolve
   * it with {@link resolveInterrupt}`(runId, interrupt.nodeId, resumeValue)`.
   *
   * @throws as {@link waitForStatus}: {@link OpenWopRunEndedError} when the run ends first.
   */
  async waitForInterrupt<K extends InterruptKind = InterruptKind>(
    runId: string,
    options: WaitForInterruptOptions<K> = {},
  ): Promise<PendingInterruptOf<K>> {
    const { nodeId, kind } = options;
    const awaited = `pending ${kind ?? ''} interrupt${nodeId !== undefined ? ` at ${nodeId}` : ''}`.replace(
      '  ',
      ' ',
    );
    return this.waitOnRun(runId, awaited, options, async () => {
      const { interrupts } = await this.listInterrupts({
        runId,
        ...(kind !== undefined ? { kind } : {}),
        limit: 200,
      });
      // Newest first: the last match is the oldest.
      const match = interrupts.filter((i) => nodeId === undefined || i.nodeId === nodeId).at(-1);
      return match as PendingInterruptOf<K> | undefined;
    });
  }

  /**
   * The wait loop: one long poll per round (at most until the deadline), `check` after each, so a
   * change between a check and the next poll wakes that poll at once (its cursor is before it).
   */
  private async waitOnRun<T>(
    runId: string,
    awaited: string,
    options: WaitOptions,
    check: (status: string) => Promise<T | undefined>,
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    const deadline = Date.now() + timeoutMs;
    const signal = options.signal;
    let after = -1;
    let status: string | undefined;
    for (let round = 0; ; round++) {
      signal?.throwIfAborted();
      const wait = round === 0 ? 0 : Math.min(MAX_POLL_WAIT_MS, Math.max(0, deadline - Date.now()));
      const page = await this.pollEvents(runId, {
        after,
        timeoutMs: wait,
        streamMode: 'updates',
        ...(signal ? { signal } : {}),
      });
      after = page.nextAfter;
      status = page.runStatus;
      const found = await check(status);
      if (found !== undefined) return found;
      if (TERMINAL_STATUSES.has(status) && page.isComplete !== false)
        throw new OpenWopRunEndedError(runId, awaited, status);
      if (Date.now() >= deadline) throw new OpenWopTimeoutError(runId, awaited, status, timeoutMs);
    }
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
    body: { decision: 'approved' | 'rejected'; feedback?: string | undefined } & Record<string, unknown>,
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
    options: { messageId?: string | undefined; from?: string | undefined } = {},
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
    query: { after?: number | undefined; limit?: number | undefined } = {},
  ): Promise<ConversationPage> {
    return this.call('GET', `/v1/runs/${enc(runId)}/conversations/${enc(conversationId)}${qs(query)}`);
  }

  // ----------------------------------------------------------------- transport
  /**
   * Sends a request and parses the JSON answer. `path` may be absolute (a `callbackUrl`).
   *
   * @throws {@link OpenWopApiError} (a subclass by status) for non-2xx answers; {@link OpenWopNetworkError} when nothing answers.
   */
  call<T>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    authenticate = true,
  ): Promise<T> {
    return this.request(method, path, { body, headers: extraHeaders, authenticate });
  }

  private async request<T>(
    method: string,
    path: string,
    options: {
      body?: unknown;
      headers?: Record<string, string>;
      authenticate?: boolean;
      signal?: AbortSignal;
    },
  ): Promise<T> {
    const { body, signal } = options;
    const extra: Record<string, string> = { accept: 'application/json', ...options.headers };
    const headers = options.authenticate === false ? extra : this.headers(extra);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.send(new URL(path, this.options.baseUrl), {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
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
      if (init.signal?.aborted) throw init.signal.reason;
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
