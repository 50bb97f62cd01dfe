import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenWopClient } from '@openwop/sdk';
import {
  freePort,
  startApp,
  startEmbeddedHost,
  TEST_KEYS,
  waitFor,
  type RunningHost,
} from '@openwop/testing';

/**
 * The embedded default on PGlite with a data folder, as `npm start` runs it: every app's statements
 * share PGlite's one in-process connection. Concurrent cycles, concurrent resolves of one interrupt
 * (the losers' statements fail inside their transactions) and a kill -9 with a restart on the same
 * folder all go through that connection.
 */
describe('the embedded host on a PGlite data folder', () => {
  let dataDir: string;
  let host: RunningHost;
  const client = () => new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1 });
  const url = (path: string) => `${host.gateways[0]!}${path}`;
  const headers = { authorization: `Bearer ${TEST_KEYS.t1}`, 'content-type': 'application/json' };

  const statusOf = async (runId: string) => (await client().getRun(runId)).status;
  const untilStatus = (runId: string, status: string) =>
    waitFor(async () => ((await statusOf(runId)) === status ? true : undefined), {
      timeoutMs: 20_000,
      what: `run ${runId} ${status}`,
    });
  const startWaiting = async () => {
    const { runId } = await client().createRun({ workflowId: 'conformance-approval' });
    await untilStatus(runId, 'waiting-approval');
    return runId;
  };
  const resolve = (runId: string) =>
    fetch(url(`/v1/runs/${runId}/interrupts/gate`), {
      method: 'POST',
      headers,
      body: JSON.stringify({ action: 'accept' }),
    });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'openwop-pglite-'));
    host = await startEmbeddedHost({ env: { OPENWOP_DATA_DIR: join(dataDir, 'pgdata') } });
  });
  afterAll(async () => {
    await host?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs 20 approval cycles at once to completion, each with a gapless log', async () => {
    const runIds = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const runId = await startWaiting();
        expect((await resolve(runId)).status).toBe(200);
        await untilStatus(runId, 'completed');
        return runId;
      }),
    );
    for (const runId of runIds) {
      const events = await client().listEvents(runId);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
      expect(events[events.length - 1]!.type).toBe('run.completed');
    }
  });

  it('lets exactly one of 8 concurrent resolves of one interrupt win', async () => {
    const runId = await startWaiting();
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => resolve(runId)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    await untilStatus(runId, 'completed');
    const resolved = (await client().listEvents(runId)).filter((e) => e.type === 'interrupt.resolved');
    expect(resolved).toHaveLength(1);
  });

  it('keeps a waiting run across a kill -9 and resumes it after the restart', async () => {
    const runId = await startWaiting();
    const before = await client().listEvents(runId);
    const [victim] = host.processes.splice(0, 1);
    await victim!.kill('SIGKILL');
    const restarted = await host.restart('embedded');
    expect(restarted.name).toBe('embedded');
    expect(await statusOf(runId)).toBe('waiting-approval');
    expect((await client().listEvents(runId)).map((e) => e.eventId)).toEqual(before.map((e) => e.eventId));
    expect((await resolve(runId)).status).toBe(200);
    await untilStatus(runId, 'completed');
    const after = await client().listEvents(runId);
    expect(after.map((e) => e.sequence)).toEqual(after.map((_, i) => i));
    expect(after.filter((e) => e.type === 'interrupt.resolved')).toHaveLength(1);
  });

  it('a second start on the same port or data folder stops before it opens anything, and the first host keeps serving', async () => {
    const keyFile = join(dataDir, 'second-dev-api-key');
    const second = (env: Record<string, string>) =>
      startApp(
        'embedded-second',
        'apps/embedded/dist/main.js',
        { ...host.env, WOP_API_KEYS: '', WOP_DEV_API_KEY_FILE: keyFile, ...env },
        /ready in \d+ ms/,
      );
    await expect(second({})).rejects.toThrow(
      /is in use — is a host already running at http:\/\/127\.0\.0\.1:\d+\?/,
    );
    await expect(second({ PORT: String(await freePort()) })).rejects.toThrow(
      /data folder .*pgdata is in use by another embedded host \(pid \d+\)/,
    );
    // An expected refusal is its message alone: no stack trace under it.
    for (const env of [{}, { PORT: String(await freePort()) }] as Record<string, string>[])
      await expect(second(env)).rejects.not.toThrow(/\n\s+at /);
    expect(existsSync(keyFile)).toBe(false); // refused before it made (or replaced) a key
    const runId = await startWaiting();
    expect((await resolve(runId)).status).toBe(200);
    await untilStatus(runId, 'completed');
  });
});
