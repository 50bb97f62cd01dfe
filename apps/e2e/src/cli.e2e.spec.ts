import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenWopClient, OpenWopValidationError, type RunSnapshotBody } from '@openwop/sdk';
import {
  createTestDatabase,
  startEmbeddedHost,
  TEST_KEYS,
  waitFor,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { killLeftovers, records, runWop, spawnWop, WOP } from './cli-process';

// The `wop` CLI as a user runs it: the built bin as a child process against a real embedded host
// (real Postgres), driven through flags and piped input; what it did is checked through the API.

const APPROVAL = 'examples/approval.yaml';
const CLARIFICATION = 'examples/clarification.yaml';

describe('wop CLI against the embedded host', () => {
  let db: TestDatabase;
  let host: RunningHost;
  let env: Record<string, string>;
  let client: OpenWopClient;

  beforeAll(async () => {
    db = await createTestDatabase('e2e_cli');
    host = await startEmbeddedHost({ databaseUrl: db.url });
    env = { WOP_URL: host.gateways[0]!, WOP_API_KEY: TEST_KEYS.t1 };
    client = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1 });
  });
  afterEach(killLeftovers);
  afterAll(async () => {
    await host?.stop();
    await db?.drop();
  });

  const runIdOf = (stdout: string): string => {
    const m = /run ([0-9a-f-]{36})/.exec(stdout);
    if (!m) throw new Error(`no run id in:\n${stdout}`);
    return m[1]!;
  };
  const status = async (runId: string, wanted: string): Promise<RunSnapshotBody> =>
    waitFor(
      async () => {
        const run = await client.getRun(runId);
        return run.status === wanted ? run : undefined;
      },
      { timeoutMs: 20_000, what: `run ${runId} ${wanted}` },
    );

  describe('wop validate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wop-'));

    it('exits 0 for every example', async () => {
      for (const file of [
        APPROVAL,
        CLARIFICATION,
        'examples/conversation.yaml',
        'examples/external-event.yaml',
      ]) {
        const r = await runWop(['validate', file], env);
        expect({ file, code: r.code, out: r.stdout }).toEqual({ file, code: 0, out: `${file}: valid\n` });
      }
    });

    it('exits 2 naming the field, its pointer, line:column and the fix', async () => {
      const file = join(dir, 'old.yaml');
      writeFileSync(
        file,
        [
          'id: old',
          'name: Old',
          'version: "1"',
          'nodes:',
          '  - id: chat',
          '    typeId: agent.conversation',
          '    config:',
          '      provider: scripted',
          '      script: [hi]',
          '      initial_prompt: hello',
          'edges: []',
          '',
        ].join('\n'),
      );
      const r = await runWop(['validate', file], env);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(
        `${file}:10:7: error: field \`initial_prompt\` at /nodes/0/config/initial_prompt:`,
      );
      expect(r.stderr).toContain('fix: use system_prompt');
      const json = await runWop(['validate', file, '--json'], env);
      expect(records(json.stdout)).toEqual([
        expect.objectContaining({
          type: 'diagnostic',
          field: 'initial_prompt',
          pointer: '/nodes/0/config/initial_prompt',
          line: 10,
          col: 7,
        }),
        { type: 'validation', file, ok: false },
      ]);
    });

    it('exits 2 for a usage error, a missing file or an unknown command; 0 for --help', async () => {
      expect((await runWop(['validate'], env)).code).toBe(2);
      expect((await runWop(['validate', join(dir, 'missing.yaml')], env)).code).toBe(2);
      expect((await runWop(['frobnicate'], env)).code).toBe(2);
      expect((await runWop(['run', APPROVAL, '--bogus'], env)).code).toBe(2);
      const help = await runWop(['--help'], env);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('exit codes:\n  0    ok\n');
      expect(help.stdout).toContain('\n  4    input ended while the run waits for an answer');
      expect(help.stdout).toContain('\n  130  interrupted (Ctrl+C)');
    });

    it('refuses a misspelt --action before anything reaches the server: no workflow, no run', async () => {
      const file = join(dir, 'typo.yaml');
      writeFileSync(
        file,
        [
          'id: cli-typo',
          'name: Typo',
          'version: "1"',
          'nodes:',
          '  - id: review',
          '    typeId: core.approvalGate',
          '    config: { title: T, artifactType: t, artifactData: {}, actions: [accept, reject] }',
          'edges: []',
          '',
        ].join('\n'),
      );
      const r = await runWop(['run', file, '--action', 'acept'], env);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('--action "acept" is not an approval action');
      await expect(client.getWorkflow('cli-typo')).rejects.toMatchObject({ status: 404 });
      expect((await client.listRuns({ workflowId: 'cli-typo' })).runs).toEqual([]);
    });

    it('refuses to run an invalid file before anything reaches the server', async () => {
      const file = join(dir, 'invalid-run.yaml');
      writeFileSync(file, 'id: never-registered\nname: x\nversion: "1"\nnodes: []\nedges: []\n');
      const r = await runWop(['run', file], env);
      expect(r.code).toBe(2);
      await expect(client.getWorkflow('never-registered')).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('wop run', () => {
    it('answers an approval from piped input (ask, then accept) and follows the run to completion', async () => {
      const r = await runWop(['run', APPROVAL], env, 's\nWho reads it?\na\n');
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      expect(r.stdout).toContain('Approval: Publish "Hello, OpenWOP"?');
      expect(r.stdout).toContain('"title": "Hello, OpenWOP"');
      expect(r.stdout).toContain('actions: accept (a), reject (r), edit (e), ask (s)');
      expect(r.stdout).toContain('✔ run completed');
      const runId = runIdOf(r.stdout);
      const events = await client.listEvents(runId);
      const types = events.map((e) => e.type);
      expect(types[types.length - 1]).toBe('run.completed');
      expect(events.find((e) => e.type === 'approval.received')?.payload).toMatchObject({ action: 'accept' });
      const notes = events
        .filter((e) => e.type === 'log.appended')
        .map((e) => (e.payload as { fields?: { note?: unknown } }).fields?.note);
      expect(notes).toEqual([expect.objectContaining({ type: 'ask', question: 'Who reads it?' })]);
    });

    it('answers from flags with --json: NDJSON progress with the runId; a rejected gate fails the run (exit 1)', async () => {
      const r = await runWop(['run', APPROVAL, '--action', 'reject', '--feedback', 'not now', '--json'], env);
      expect(r.code).toBe(1);
      const lines = records(r.stdout);
      expect(lines[0]).toMatchObject({
        type: 'run',
        workflowId: 'example-approval',
        runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      const runId = lines[0]!.runId as string;
      expect(lines.filter((l) => l.type === 'event').map((l) => (l.event as { type: string }).type)).toEqual(
        expect.arrayContaining(['run.started', 'node.suspended', 'interrupt.resolved', 'run.failed']),
      );
      expect(lines[lines.length - 1]).toEqual({ type: 'result', runId, status: 'failed' });
      expect((await client.getRun(runId)).status).toBe('failed');
      const received = (await client.listEvents(runId)).find((e) => e.type === 'approval.received');
      expect(received?.payload).toMatchObject({ action: 'reject', feedback: 'not now' });
    });

    it('answers clarification questions with --answer and passes --input to the run', async () => {
      const r = await runWop(
        [
          'run',
          CLARIFICATION,
          '--answer',
          'city=Lisbon',
          '--answer',
          'days=3',
          '--input',
          'team=core',
          '--input',
          'size=4',
        ],
        env,
      );
      expect(r.code).toBe(0);
      // The questions are shown with the answers the flags gave, not a bare heading.
      expect(r.stdout).toContain(
        'Clarification needed:\n  Which city?\ncity> Lisbon (from --answer)\n  How many days?\ndays> 3 (from --answer)\n',
      );
      const runId = runIdOf(r.stdout);
      const events = await client.listEvents(runId);
      expect(events.find((e) => e.type === 'run.started')?.payload).toMatchObject({
        inputs: { team: 'core', size: 4 },
      });
      expect(
        events.find((e) => e.type === 'node.completed' && e.nodeId === 'details')?.payload,
      ).toMatchObject({
        outputs: { answers: { city: 'Lisbon', days: 3 } },
      });
    });

    it('asks each clarification question from piped input', async () => {
      const r = await runWop(['run', CLARIFICATION], env, 'Porto\ntwo\n');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Which city?\ncity> Porto\n');
      const events = await client.listEvents(runIdOf(r.stdout));
      expect(events.find((e) => e.type === 'clarification.resolved')?.payload).toMatchObject({
        answers: { city: 'Porto', days: 'two' },
      });
    });

    it("at end of input leaves the waiting run durable (exit 4, not Ctrl+C's 130); wop attach picks it up and finishes it", async () => {
      const r = await runWop(['run', APPROVAL, '--cancel-on-interrupt'], env, '');
      expect(r.code).toBe(4);
      const runId = runIdOf(r.stdout);
      expect(r.stdout).toContain(
        `input ended; run ${runId} waits for an approval at step review; continue with: wop attach ${runId}`,
      );
      expect(await client.getRun(runId)).toMatchObject({
        status: 'waiting-approval',
        currentNodeId: 'review',
      });
      const attached = await runWop(['attach', runId], env, 'a\n');
      expect({ code: attached.code, stderr: attached.stderr }).toEqual({ code: 0, stderr: '' });
      expect(attached.stdout).toContain(
        `run ${runId} (workflow example-approval) waits for an approval at step review`,
      );
      expect(attached.stdout).toContain('✔ run completed');
      await status(runId, 'completed');
    });

    it('Ctrl+C while waiting leaves the run waiting (exit 130); with --cancel-on-interrupt it cancels the run', async () => {
      const waiting = spawnWop(['run', APPROVAL], env);
      await waiting.waitFor('actions: accept');
      waiting.child.kill('SIGINT');
      expect((await waiting.exit).code).toBe(130);
      const runId = runIdOf(waiting.stdout());
      expect((await client.getRun(runId)).status).toBe('waiting-approval');

      const cancelling = spawnWop(['run', APPROVAL, '--cancel-on-interrupt'], env);
      await cancelling.waitFor('actions: accept');
      cancelling.child.kill('SIGINT');
      expect((await cancelling.exit).code).toBe(130);
      await status(runIdOf(cancelling.stdout()), 'cancelled');
    });

    it('prints the token and callback URL of an external event, and follows the run once the outside system posts', async () => {
      const following = spawnWop(['run', 'examples/external-event.yaml'], env);
      following.child.stdin.end();
      await following.waitFor(/callback URL: (\S+)/);
      const url = /callback URL: (\S+)/.exec(following.stdout())![1]!;
      const token = /token: +(\S+)/.exec(following.stdout())?.[1];
      expect(url).toBe(`${host.gateways[0]!}/v1/interrupts/${token}`);
      expect(following.stdout()).toContain('Waiting for external event payment.settled at step payment');
      const outside = new OpenWopClient({ baseUrl: host.gateways[0]! });
      expect(await outside.resolveByToken(url, { eventPayload: { amount: 42 } })).toMatchObject({
        status: 'resolved',
      });
      expect((await following.exit).code).toBe(0);
      expect(following.stdout()).toContain('✔ run completed');
      const events = await client.listEvents(runIdOf(following.stdout()));
      expect(
        events.find((e) => e.type === 'node.completed' && e.nodeId === 'payment')?.payload,
      ).toMatchObject({
        outputs: { eventPayload: { amount: 42 } },
      });
    });

    it('exits 3 when the server cannot be reached or refuses the key', async () => {
      const down = await runWop(['runs', 'ls'], { ...env, WOP_URL: 'http://127.0.0.1:9' });
      expect(down.code).toBe(3);
      expect(down.stderr).toContain('network_error');
      const bad = await runWop(['runs', 'ls', '--json'], { ...env, WOP_API_KEY: 'nope' });
      expect(bad.code).toBe(3);
      expect(records(bad.stdout)).toEqual([
        expect.objectContaining({ type: 'error', status: 401, code: 'unauthenticated' }),
      ]);
      // A refused key: wop says which key it sent and where each host keeps its key.
      expect(bad.stderr).toContain('wop sent the API key from WOP_API_KEY.');
      expect(bad.stderr).toContain('.infra/stack/api-key');
      // Outside the repository no key file is found: wop says where it looked.
      const outside = mkdtempSync(join(tmpdir(), 'wop-outside-'));
      const none = await runWop(
        ['runs', 'ls'],
        { WOP_URL: env.WOP_URL!, WOP_API_KEY: '' },
        '',
        60_000,
        outside,
      );
      expect(none.code).toBe(3);
      expect(none.stderr).toContain('Missing or malformed Authorization header');
      expect(none.stderr).toContain(
        `wop sent no API key (it looked at: --api-key; WOP_API_KEY; .infra/embedded/dev-api-key in ${outside} or a parent folder (not found))`,
      );
    });
  });

  describe('listings and single commands', () => {
    it('wop interrupts, wop resolve, wop runs ls and wop events, with --json', async () => {
      const left = await runWop(['run', APPROVAL, '--json'], env, '');
      expect(left.code).toBe(4);
      const runId = records(left.stdout)[0]!.runId as string;
      expect(records(left.stdout).pop()).toEqual({
        type: 'input-ended',
        runId,
        status: 'waiting-approval',
        waitingFor: 'approval',
      });

      const pending = await runWop(['interrupts', '--kind', 'approval', '--json'], env);
      expect(pending.code).toBe(0);
      const mine = records(pending.stdout).filter((l) => l.runId === runId);
      expect(mine).toEqual([
        expect.objectContaining({
          type: 'interrupt',
          runId,
          nodeId: 'review',
          kind: 'approval',
          workflowId: 'example-approval',
        }),
      ]);
      const none = await runWop(['interrupts', '--kind', 'clarification', '--run', runId, '--json'], env);
      expect(records(none.stdout)).toEqual([]);

      const resolved = await runWop(['resolve', runId, 'review', '--action', 'accept', '--json'], env);
      expect(resolved.code).toBe(0);
      expect(records(resolved.stdout)).toEqual([
        expect.objectContaining({ type: 'resolved', status: 'resolved' }),
      ]);
      const again = await runWop(['resolve', runId, 'review', '--action', 'accept', '--json'], env);
      expect(again.code).toBe(3);
      expect(records(again.stdout)).toEqual([expect.objectContaining({ type: 'error', status: 409 })]);
      await status(runId, 'completed');

      const runs = await runWop(
        ['runs', 'ls', '--json', '--workflow', 'example-approval', '--all', '--limit', '2'],
        env,
      );
      expect(runs.code).toBe(0);
      const listed = records(runs.stdout);
      expect(listed.every((l) => l.type === 'run' && l.workflowId === 'example-approval')).toBe(true);
      expect(listed.find((l) => l.runId === runId)).toMatchObject({ status: 'completed' });
      const human = await runWop(['runs', 'ls', '--status', 'completed'], env);
      expect(human.stdout.split('\n')[0]).toMatch(/^runId +workflowId +status +currentNodeId +createdAt$/);
      expect(human.stdout).toContain(runId);

      // Colours only at a terminal without NO_COLOR (util-linux `script` gives wop a pty).
      const atTty = (extra: Record<string, string>) =>
        spawnWop(
          [],
          { ...env, ...extra },
          { file: 'script', args: ['-q', '-e', '-c', `${process.execPath} ${WOP} runs ls`, '/dev/null'] },
        );
      const coloured = atTty({ NO_COLOR: '' });
      coloured.child.stdin.end();
      expect((await coloured.exit).code).toBe(0);
      expect(coloured.stdout()).toContain('\x1b[1mrunId');
      const plain = atTty({});
      plain.child.stdin.end();
      expect((await plain.exit).code).toBe(0);
      expect(plain.stdout()).toContain('runId');
      expect(plain.stdout()).not.toContain('\x1b[');
      expect(human.stdout).not.toContain('\x1b[');

      const events = await runWop(['events', runId, '--json'], env);
      const types = records(events.stdout).map((l) => (l.event as { type: string }).type);
      expect(types[0]).toBe('run.started');
      expect(types[types.length - 1]).toBe('run.completed');
      const followed = await runWop(['events', runId, '--follow', '--json'], env);
      expect(followed.code).toBe(0);
      expect(records(followed.stdout).map((l) => (l.event as { type: string }).type)).toEqual(types);
    });
  });

  describe('GET /v1/runs', () => {
    it('pages the tenant’s runs newest first by cursor, hides other tenants, refuses a forged cursor', async () => {
      for (let i = 0; i < 5; i++) await client.createRun({ workflowId: 'conformance-noop' });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listRuns({ limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.runs.length).toBeLessThanOrEqual(2);
        seen.push(...page.runs.map((r) => r.runId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(5);
      const all = await client.listRuns({ limit: 200 });
      expect(all.runs.map((r) => r.runId)).toEqual(seen);
      const created = all.runs.map((r) => r.createdAt);
      expect([...created].sort().reverse()).toEqual(created);

      const other = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t2 });
      expect((await other.listRuns()).runs).toEqual([]);
      await expect(client.listRuns({ cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
        OpenWopValidationError,
      );
      // A cursor this host did not issue is refused as malformed, never a 500: text Postgres could
      // not take, an instant Postgres cannot hold, or any other spelling of an instant (JS reads '1'
      // as a date; the host only ever writes toISOString()).
      const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      for (const v of [
        ['2026-01-01T00:00:00Z', 'a\u0000b'],
        ['+275760-09-13T00:00:00Z', 'x'],
        ['1', 'x'],
      ]) {
        await expect(client.listRuns({ cursor: forged(v) })).rejects.toMatchObject({
          status: 400,
          code: 'validation_error',
        });
      }
      expect((await client.listRuns({ cursor: forged(['2026-01-01T00:00:00.000Z', 'x']) })).runs).toEqual(
        expect.any(Array),
      );
      await expect(client.listRuns({ status: 'sleeping' })).rejects.toMatchObject({
        code: 'validation_error',
      });
    });
  });
});
