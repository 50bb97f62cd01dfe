import type { RunEventDoc } from '@openwop/contracts';
import { OpenWopApiError } from './errors';

export interface ClientOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
}

export interface CreateRunRequest {
  readonly workflowId: string;
  readonly inputs?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly tags?: string[];
}

export interface CreateRunResponse {
  readonly runId: string;
  readonly status: string;
  readonly eventsUrl: string;
  readonly statusUrl: string;
}

export interface RunSnapshotBody {
  readonly runId: string;
  readonly workflowId: string;
  readonly status: string;
  readonly currentNodeId?: string;
  readonly [field: string]: unknown;
}

export interface PollResponse {
  readonly events: RunEventDoc[];
  readonly nextAfter: number;
  readonly runStatus: string;
}

/** A typed client of the OpenWOP REST surface. Errors are {@link OpenWopApiError}s. */
export class OpenWopClient {
  constructor(private readonly options: ClientOptions) {}

  discovery(): Promise<Record<string, unknown>> {
    return this.call('GET', '/.well-known/openwop');
  }

  createRun(body: CreateRunRequest): Promise<CreateRunResponse> {
    return this.call('POST', '/v1/runs', body);
  }

  getRun(runId: string): Promise<RunSnapshotBody> {
    return this.call('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  }

  async listEvents(runId: string): Promise<RunEventDoc[]> {
    const body = await this.call<{ events: RunEventDoc[] }>('GET', `/v1/runs/${encodeURIComponent(runId)}/events`);
    return body.events;
  }

  pollEvents(runId: string, options: { after?: number; timeoutMs?: number } = {}): Promise<PollResponse> {
    const q = new URLSearchParams();
    if (options.after !== undefined) q.set('after', String(options.after));
    if (options.timeoutMs !== undefined) q.set('timeoutMs', String(options.timeoutMs));
    return this.call('GET', `/v1/runs/${encodeURIComponent(runId)}/events/poll?${q.toString()}`);
  }

  /** Sends a request and parses the JSON answer; non-2xx answers throw {@link OpenWopApiError}. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(new URL(path, this.options.baseUrl), {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!res.ok) {
      const env = (parsed ?? {}) as { error?: string; message?: string; details?: Record<string, unknown> };
      throw new OpenWopApiError(res.status, env.error ?? 'unknown', env.message ?? res.statusText, env.details);
    }
    return parsed as T;
  }
}
