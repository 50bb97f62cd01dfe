import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  OpenWopClient,
  OpenWopConflictError,
  OpenWopNotFoundError,
  OpenWopRunEndedError,
  OpenWopTimeoutError,
  OpenWopValidationError,
  tokenFromCallbackUrl,
  type RunSnapshotBody,
} from '@openwop/sdk';
import {
  createTestDatabase,
  REPO_ROOT,
  startEmbeddedHost,
  TEST_KEYS,
  waitFor,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';

// The SDK against a real embedded host: SSE that survives dropped connections (Last-Event-ID),
// token helpers without an API key, typed errors carrying the spec code, YAML registration.

describe('OpenWopClient against the embedded host', () => {
  let db: TestDatabase;
  let host: RunningHost;
  let client: OpenWopClient;

  beforeAll(async () => {
    db = await createTestDatabase('e2e_sdk');
    host = await startEmbeddedHost({ databaseUrl: db.url });
    client = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1 });
    await client.registerWorkflowYaml(readFileSync(resolve(REPO_ROOT, 'examples/approval.yaml'), 'utf8'));
  });
  afterAll(async () => {
    await host?.stop();
    await db?.drop();
  });

  const waitingRun = async (): Promise<RunSnapshotBody> => {
    const { runId } = await client.createRun({ workflowId: 'example-approval' });
    return waitFor(
      async () => {
        const run = await client.getRun(runId);
        return run.status === 'waiting-approval' && run.interrupt?.callbackUrl ? run : undefined;
      },
      { timeoutMs: 20_000, what: 'run waiting with a callback URL' },
    );
  };

  it('registers YAML and reads the definition back', async () => {
    expect(await client.getWorkflow('example-approval')).toMatchObject({
      id: 'example-approval',
      nodes: [{ id: 'review' }, { id: 'publish' }],
    });
    await expect(client.registerWorkflowYaml('id: [broken')).rejects.toBeInstanceOf(OpenWopValidationError);
  });

  it('streamEvents reconnects with Last-Event-ID after the connection drops: every event once, in order, to the end', async () => {
    const run = await waitingRun();
    const lastEventIds: (string | null)[] = [];
    // The first connection ends after its first chunk of bytes, as a dropped connection would.
    const dropping: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      lastEventIds.push(new Headers(init?.headers).get('last-event-id'));
      if (lastEventIds.length > 1 || !res.body) return res;
      const reader = res.body.getReader();
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value } = await reader.read();
          if (value) controller.enqueue(value);
          controller.close();
          await reader.cancel();
        },
      });
      return new Response(cut, { status: res.status, headers: res.headers });
    };
    const flaky = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1, fetch: dropping });
    const seen: { seq: number | undefined; type: string }[] = [];
    for await (const frame of flaky.streamEvents(run.runId, { streamMode: 'debug', reconnectDelayMs: 50 })) {
      seen.push({ seq: frame.id, type: (frame.data as { type: string }).type });
      if (seen.length === 1) await client.resolveInterrupt(run.runId, 'review', { action: 'accept' });
    }
    expect(lastEventIds.length).toBeGreaterThanOrEqual(2);
    expect(lastEventIds[0]).toBeNull();
    expect(Number(lastEventIds[1])).toBeGreaterThanOrEqual(0);
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i));
    expect(seen[seen.length - 1]!.type).toBe('run.completed');
    expect(seen.map((e) => e.type)).toEqual((await client.listEvents(run.runId)).map((e) => e.type));
  });

  it('inspects and resolves by token or callback URL without an API key; typed errors carry the spec code', async () => {
    const run = await waitingRun();
    const anonymous = new OpenWopClient({ baseUrl: host.gateways[0]! });
    const url = run.interrupt!.callbackUrl!;
    expect(tokenFromCallbackUrl(url)).toBe(run.interrupt!.interruptToken);
    expect(await anonymous.inspectToken(url)).toMatchObject({
      runId: run.runId,
      nodeId: 'review',
      kind: 'approval',
    });
    expect(await anonymous.inspectToken(run.interrupt!.interruptToken!)).toMatchObject({ runId: run.runId });
    expect(await anonymous.resolveByToken(url, { action: 'accept' })).toMatchObject({ status: 'resolved' });

    const again = await client
      .resolveInterrupt(run.runId, 'review', { action: 'accept' })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(OpenWopConflictError);
    expect(again).toMatchObject({ status: 409, code: 'interrupt_already_resolved' });
    await expect(client.getRun('00000000-0000-0000-0000-000000000000')).rejects.toBeInstanceOf(
      OpenWopNotFoundError,
    );
    await expect(anonymous.listRuns()).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('waitForInterrupt and waitForStatus return once the run gets there, and end on a deadline, an abort or the run ending', async () => {
    const { runId } = await client.createRun({ workflowId: 'example-approval' });
    const gate = await client.waitForInterrupt(runId, {
      nodeId: 'review',
      kind: 'approval',
      timeoutMs: 20_000,
    });
    expect(gate).toMatchObject({
      runId,
      nodeId: 'review',
      kind: 'approval',
      data: { actions: expect.any(Array) },
    });
    expect(await client.waitForStatus(runId, ['waiting-approval'], { timeoutMs: 20_000 })).toMatchObject({
      runId,
      status: 'waiting-approval',
      interrupt: { nodeId: 'review' },
    });

    // Not there before the deadline: the last status seen comes with the error.
    const late = await client.waitForStatus(runId, 'completed', { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(OpenWopTimeoutError);
    expect(late).toMatchObject({ runId, lastStatus: 'waiting-approval', timeoutMs: 300 });
    const elsewhere = await client
      .waitForInterrupt(runId, { nodeId: 'publish', timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(elsewhere).toBeInstanceOf(OpenWopTimeoutError);

    // An abort ends a wait in progress (its request included), with the signal's reason.
    const stop = new AbortController();
    const waiting = client.waitForStatus(runId, 'completed', { timeoutMs: 20_000, signal: stop.signal });
    stop.abort(new Error('no longer needed'));
    await expect(waiting).rejects.toThrow('no longer needed');

    // A wait in progress sees the change; after the end, a wait for what can no longer come fails at once.
    const completing = client.waitForStatus(runId, ['completed', 'failed'], { timeoutMs: 20_000 });
    await client.resolveInterrupt(runId, gate.nodeId, { action: 'accept' });
    expect(await completing).toMatchObject({ runId, status: 'completed' });
    const ended = await client.waitForInterrupt(runId, { timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(ended).toBeInstanceOf(OpenWopRunEndedError);
    expect(ended).toMatchObject({ runId, status: 'completed' });
    await expect(client.waitForStatus(runId, 'cancelled', { timeoutMs: 20_000 })).rejects.toBeInstanceOf(
      OpenWopRunEndedError,
    );
  });

  it('streamEvents types every frame by its data: run events in every mode, snapshots in values mode', async () => {
    const run = await waitingRun();
    const values: string[] = [];
    const mixed: string[] = [];
    const readValues = (async () => {
      for await (const frame of client.streamEvents(run.runId, { streamMode: 'values' })) {
        values.push(frame.type);
        if (frame.type === 'state.snapshot' && frame.data.payload.status === 'completed') break;
      }
    })();
    const readMixed = (async () => {
      for await (const frame of client.streamEvents(run.runId, {
        streamMode: 'updates,messages',
        bufferMs: 50,
      }))
        mixed.push(frame.type);
    })();
    await client.waitForStatus(run.runId, 'waiting-approval');
    await client.resolveInterrupt(run.runId, 'review', { action: 'accept' });
    await Promise.all([readValues, readMixed]);
    expect(new Set(values)).toEqual(new Set(['state.snapshot']));
    expect(mixed).not.toContain('unknown');
    expect(mixed).toContain('interrupt.requested');
    expect(mixed.at(-1)).toBe('run.completed');
  });
});
