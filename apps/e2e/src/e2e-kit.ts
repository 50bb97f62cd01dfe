import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { OpenWopApiError, type OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { REPO_ROOT, TEST_KEYS, waitFor } from '@openwop/testing';

/** Waits until the run's snapshot shows one of `statuses` (a status or a list), and returns it. */
export function waitStatus(
  client: OpenWopClient,
  runId: string,
  statuses: string | readonly string[],
  timeoutMs = 10_000,
): Promise<RunSnapshotBody> {
  const wanted = typeof statuses === 'string' ? [statuses] : statuses;
  return waitFor(
    async () => {
      const s = await client.getRun(runId);
      return wanted.includes(s.status) ? s : undefined;
    },
    { timeoutMs, what: `run ${runId} ${wanted.join('|')}` },
  );
}

/** The API refusal a request ends in; fails when it succeeds or fails otherwise. */
export async function refusal(p: Promise<unknown>): Promise<OpenWopApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OpenWopApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

/** One SQL query on its own connection (the test reads the tables the services wrote). */
export async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** A node of {@link workflowDefinition}; `config` defaults to `{}`. */
export interface WorkflowNodeSpec {
  readonly id: string;
  readonly typeId: string;
  readonly config?: Record<string, unknown>;
}

/**
 * A workflow definition named by its id, from its nodes and its edges as
 * `[source, target, triggerRule?]` (edge ids `e0`, `e1`… in order).
 */
export function workflowDefinition(
  id: string,
  nodes: readonly WorkflowNodeSpec[],
  edges: readonly [string, string, string?][] = [],
) {
  return {
    id,
    name: id,
    version: '1.0.0',
    nodes: nodes.map((n) => ({ config: {}, ...n })),
    edges: edges.map(([source, target, triggerRule], i) => ({
      id: `e${i}`,
      sourceNodeId: source,
      targetNodeId: target,
      ...(triggerRule ? { triggerRule } : {}),
    })),
    triggers: [],
    variables: [],
    metadata: {},
    settings: {},
  };
}

/** The headless Chromium the browser specs drive (`tools/browser/ensure-chromium.sh` fetches it once). */
export function chromiumExecutable(): string {
  return execFileSync('bash', [resolve(REPO_ROOT, 'tools/browser/ensure-chromium.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** One HTTP answer with its parsed body. */
export interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

/**
 * A JSON request to a gateway as `apiKey` (t1's by default): the status and the parsed body,
 * whatever the status (the specs assert refusals as often as answers).
 */
export async function callGateway(
  gateway: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  apiKey: string = TEST_KEYS.t1,
): Promise<Answer> {
  const answer = await sendJson(`${gateway}${path}`, method, { authorization: `Bearer ${apiKey}` }, body);
  return { status: answer.status, json: answer.body };
}

/** One HTTP answer with its headers and its parsed body (`{}` when empty). */
export interface HeadedAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/**
 * One request with `headers` (and a JSON `body`, with its content type, when given): the status,
 * headers and parsed body, whatever the status.
 */
export async function sendJson(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<HeadedAnswer> {
  const res = await fetch(url, {
    method,
    headers: body !== undefined ? { ...headers, 'content-type': 'application/json' } : headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
  };
}
