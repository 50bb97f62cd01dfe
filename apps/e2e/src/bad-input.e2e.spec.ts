import { Client } from 'pg';
import { assertErrorEnvelope } from '@openwop/contracts';
import { OpenWopClient } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: (runId: string) => string;
  readonly key?: string;
  readonly auth?: string;
  readonly body?: string;
  readonly accept?: string;
  readonly status: number;
  readonly error: string;
}

const json = (v: unknown) => JSON.stringify(v);

const CASES: readonly Case[] = [
  {
    name: 'no Authorization header',
    method: 'GET',
    path: (r) => `/v1/runs/${r}`,
    status: 401,
    error: 'unauthenticated',
  },
  {
    name: 'a non-Bearer scheme',
    method: 'GET',
    path: (r) => `/v1/runs/${r}`,
    auth: 'Basic Zm9vOmJhcg==',
    status: 401,
    error: 'unauthenticated',
  },
  {
    name: 'an unknown key',
    method: 'GET',
    path: (r) => `/v1/runs/${r}`,
    key: 'wop_not_a_key',
    status: 401,
    error: 'unauthenticated',
  },
  {
    name: 'a key without runs:create',
    method: 'POST',
    path: () => '/v1/runs',
    key: TEST_KEYS.readonly,
    body: json({ workflowId: 'conformance-noop' }),
    status: 403,
    error: 'forbidden',
  },
  {
    name: 'malformed JSON',
    method: 'POST',
    path: () => '/v1/runs',
    body: '{"workflowId": ',
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'a missing workflowId',
    method: 'POST',
    path: () => '/v1/runs',
    body: json({}),
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'a non-string workflowId',
    method: 'POST',
    path: () => '/v1/runs',
    body: json({ workflowId: 5 }),
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'an unknown workflowId',
    method: 'POST',
    path: () => '/v1/runs',
    body: json({ workflowId: 'no-such-workflow' }),
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'an unknown field',
    method: 'POST',
    path: () => '/v1/runs',
    body: json({ workflowId: 'conformance-noop', bogus: 1 }),
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'inputs that are not an object',
    method: 'POST',
    path: () => '/v1/runs',
    body: json({ workflowId: 'conformance-noop', inputs: 'x' }),
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'an unknown run',
    method: 'GET',
    path: () => '/v1/runs/00000000-0000-4000-8000-000000000000',
    status: 404,
    error: 'not_found',
  },
  {
    name: 'a run of another tenant',
    method: 'GET',
    path: (r) => `/v1/runs/${r}`,
    key: TEST_KEYS.t2,
    status: 404,
    error: 'not_found',
  },
  {
    name: 'events of another tenant',
    method: 'GET',
    path: (r) => `/v1/runs/${r}/events/poll`,
    key: TEST_KEYS.t2,
    status: 404,
    error: 'not_found',
  },
  {
    name: 'an unknown stream mode',
    method: 'GET',
    path: (r) => `/v1/runs/${r}/events?streamMode=bogus`,
    accept: 'text/event-stream',
    status: 400,
    error: 'unsupported_stream_mode',
  },
  {
    name: 'a non-numeric poll cursor',
    method: 'GET',
    path: (r) => `/v1/runs/${r}/events/poll?after=abc`,
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'an unknown /v1 route',
    method: 'GET',
    path: () => '/v1/no-such-route',
    status: 404,
    error: 'not_found',
  },
];

async function tableCounts(url: string): Promise<Record<string, number>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, number> = {};
    for (const t of ['runs', 'run_events', 'engine_runs', 'outbox', 'processed_messages']) {
      const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`);
      out[t] = Number(r.rows[0]?.n);
    }
    return out;
  } finally {
    await client.end();
  }
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('bad input, %s mode', (mode) => {
  let hut: HostUnderTest;
  let runId: string;
  let before: Record<string, number>;

  beforeAll(async () => {
    hut = await MODES[mode]();
    const client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
    runId = (await client.createRun({ workflowId: 'conformance-noop' })).runId;
    await waitFor(async () => (await client.getRun(runId)).status === 'completed', {
      what: 'seed run completed',
    });
    await waitFor(async () => (await tableCounts(hut.db.url)).outbox === 0, { what: 'outbox drained' });
    before = await tableCounts(hut.db.url);
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it.each(CASES)('answers $name with $status $error in the error envelope', async (c) => {
    const headers: Record<string, string> = { accept: c.accept ?? 'application/json' };
    if (c.auth) headers.authorization = c.auth;
    else if (c.name !== 'no Authorization header') headers.authorization = `Bearer ${c.key ?? TEST_KEYS.t1}`;
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${hut.host.gateways[0]!}${c.path(runId)}`, {
      method: c.method,
      headers,
      ...(c.body !== undefined ? { body: c.body } : {}),
    });
    const body: unknown = await res.json();
    expect({ status: res.status, body }).toMatchObject({ status: c.status, body: { error: c.error } });
    expect(() => assertErrorEnvelope(body)).not.toThrow();
  });

  it('wrote nothing for any refused request', async () => {
    expect(await tableCounts(hut.db.url)).toEqual(before);
  });
});
