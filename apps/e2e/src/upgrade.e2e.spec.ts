import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import {
  createTestDatabase,
  REPO_ROOT,
  startDistributedStack,
  startEmbeddedHost,
  TEST_KEYS,
  testTokenKeysJson,
  waitFor,
  type AppProcess,
  type RunningHost,
} from '@openwop/testing';
import { refusal, workflowDefinition } from './e2e-kit';

// The upgrade test (issue 22 item 3, ADR 0030): the previous release's build
// (tools/upgrade/previous-release.json, built once in a git worktree under .infra/upgrade) leaves
// suspended work on a data folder, a Postgres database and Kafka topics; it is stopped; this
// checkout's build starts on the same data, keys and topics and finishes all of it. Every run
// completes exactly once, the tokens the old build issued still verify, the timers it armed fire
// once, and neither build dead-letters anything.

type RunEvent = Awaited<ReturnType<OpenWopClient['listEvents']>>[number];

const PREVIOUS = JSON.parse(readFileSync(join(REPO_ROOT, 'tools/upgrade/previous-release.json'), 'utf8')) as {
  readonly commit: string;
};
/** An approval timeout and a delay that outlive the restart yet fire within the test. */
const TIMER_MS = 25_000;
const WAIT_MS = 30_000;
const CONVERSATION_ID = (runId: string) => `${runId}:talk:0`;
/** What the scripted agent says: the greeting, then one reply per exchange. */
const SCRIPT = [
  'hello, what shall we plan?',
  'noted: a trip',
  'noted: in May',
  'noted: by train',
  'noted: two people',
];
/** Exchanges before the upgrade, and after it. */
const EXCHANGES_BEFORE = 2;
const EXCHANGES_AFTER = 2;

const run = promisify(execFile);
let prepared: Promise<string> | undefined;

/** The previous release's build: made by tools/upgrade/prepare-previous.sh once, then reused. */
function previousRelease(): Promise<string> {
  prepared ??= run('bash', [join(REPO_ROOT, 'tools/upgrade/prepare-previous.sh')], {
    cwd: REPO_ROOT,
    maxBuffer: 64 << 20,
  }).then(
    ({ stdout }) => stdout.trim().split('\n').pop()!,
    (e: { stderr?: string; message: string }) => {
      throw new Error(
        `could not build the previous release ${PREVIOUS.commit}: ${e.message}\n${e.stderr ?? ''}`,
      );
    },
  );
  return prepared;
}

/** The workflows the old build registers (the fixtures it ships cover the rest). */
const WORKFLOWS = [
  workflowDefinition(
    'upgrade-quorum',
    [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        config: { title: 'Two approvers', actions: ['accept', 'reject'], requiredApprovals: 2 },
      },
      { id: 'after', typeId: 'core.noop' },
    ],
    [['gate', 'after']],
  ),
  // Nobody answers: the timeout rejects the gate, and its any_failed edge completes the run.
  workflowDefinition(
    'upgrade-timeout',
    [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        config: { title: 'Times out', actions: ['accept', 'reject'], timeoutMs: TIMER_MS },
      },
      { id: 'on-timeout', typeId: 'core.noop' },
      { id: 'on-accept', typeId: 'core.noop' },
    ],
    [
      ['gate', 'on-timeout', 'any_failed'],
      ['gate', 'on-accept', 'all_success'],
    ],
  ),
  workflowDefinition(
    'upgrade-conversation',
    [{ id: 'talk', typeId: 'agent.conversation', config: { provider: 'scripted', script: SCRIPT } }],
    [],
  ),
];

/** One place to run a build on: its data (and topics) outlive the builds started on it. */
interface Deployment {
  start(rootDir: string): Promise<RunningHost>;
  dispose(): Promise<void>;
}

const DEPLOYMENTS: Record<string, () => Promise<Deployment>> = {
  // As `npm start` runs it: no WOP_TOKEN_KEYS, so the key file the old build generated next to its
  // data folder is the one the new build must read.
  'embedded on a PGlite data folder': async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openwop-upgrade-'));
    const env = { OPENWOP_DATA_DIR: join(dir, 'pgdata') };
    return {
      start: (rootDir) => startEmbeddedHost({ env, rootDir }),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  'embedded on Postgres': async () => {
    const db = await createTestDatabase('e2e_upgrade_embedded');
    const env = { WOP_TOKEN_KEYS: testTokenKeysJson('upgrade-k1') };
    return {
      start: (rootDir) => startEmbeddedHost({ databaseUrl: db.url, env, rootDir }),
      dispose: () => db.drop(),
    };
  },
  // One topic namespace for both builds: the new consumers resume the old ones' groups.
  distributed: async () => {
    const db = await createTestDatabase('e2e_upgrade_distributed');
    const namespace = `upgrade-${randomBytes(4).toString('hex')}`;
    const env = { WOP_TOKEN_KEYS: testTokenKeysJson('upgrade-k1') };
    return {
      start: (rootDir) => startDistributedStack({ databaseUrl: db.url, namespace, env, rootDir }),
      dispose: () => db.drop(),
    };
  },
};

/** The resolving and inspecting tokens a snapshot shows a key with `approvals:respond`. */
interface Tokens {
  readonly interruptId: string;
  readonly interruptToken: string;
  readonly callbackUrl: string;
  readonly inspectToken: string;
  readonly tokenExpiresAt: string;
}

/** What the old build left behind for the new one. */
interface Pending {
  readonly approval: string;
  readonly tokens: Tokens;
  readonly quorum: string;
  readonly clarification: string;
  readonly conversation: string;
  readonly timeout: string;
  readonly delay: string;
}

/** Counts of `type` (node events as `type@node`) in a run log. */
function counts(events: readonly RunEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) {
    const nodeId = (e.payload as { nodeId?: unknown } | undefined)?.nodeId;
    const k = typeof nodeId === 'string' && e.type.startsWith('node.') ? `${e.type}@${nodeId}` : e.type;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** `log.appended` events of a durable timer (`timer.scheduled`, `timer.fired`). */
const timerEvents = (events: readonly RunEvent[], event: string) =>
  events.filter(
    (e) =>
      e.type === 'log.appended' && (e.payload as { fields?: { event?: string } }).fields?.event === event,
  );

/**
 * A run that completed exactly once: gapless sequences, unique event ids, one terminal event and it
 * last, no node started or completed twice (none of these workflows loops).
 */
function expectCompletedOnce(events: readonly RunEvent[]): void {
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
  expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
  const c = counts(events);
  expect({ completed: c['run.completed'], failed: c['run.failed'], cancelled: c['run.cancelled'] }).toEqual({
    completed: 1,
    failed: undefined,
    cancelled: undefined,
  });
  expect(events[events.length - 1]!.type).toBe('run.completed');
  const twice = Object.entries(c).filter(([k, n]) => /^node\.(started|completed)@/.test(k) && n > 1);
  expect(twice).toEqual([]);
}

describe.each(Object.keys(DEPLOYMENTS))(
  `upgrade from the previous release (${PREVIOUS.commit.slice(0, 7)}), %s`,
  (name) => {
    let deployment: Deployment;
    let oldHost: RunningHost | undefined;
    let newHost: RunningHost | undefined;
    const oldProcesses: AppProcess[] = [];
    let pending: Pending;
    let client: OpenWopClient;
    let second: OpenWopClient;
    let anon: OpenWopClient;

    /** What the new build's processes logged that looks wrong: the tail of a failure message. */
    const complaints = () =>
      (newHost?.processes ?? [])
        .flatMap((p) =>
          p
            .output()
            .split('\n')
            .filter((l) => /error|exception|failed|dead-letter/i.test(l))
            .map((l) => `${p.name}: ${l}`),
        )
        .slice(-15)
        .join('\n') || '(no error line)';

    /** Waits for `status`; on a timeout says where the run is and what the new build complained about. */
    async function waitStatus(runId: string, status: string, timeoutMs = WAIT_MS): Promise<RunSnapshotBody> {
      try {
        return await waitFor(
          async () => {
            const s = await client.getRun(runId);
            return s.status === status ? s : undefined;
          },
          { timeoutMs, what: `run ${runId} ${status}` },
        );
      } catch (e) {
        const s = await client.getRun(runId).catch((x: unknown) => ({ status: `unreadable: ${String(x)}` }));
        const events = await client.listEvents(runId).catch(() => []);
        const open = await client
          .call<{ interrupts: unknown[] }>('GET', `/v1/interrupts?runId=${runId}`)
          .then((r) => r.interrupts.length)
          .catch(() => '?');
        throw new Error(
          `${(e as Error).message}: after the upgrade the run is ${s.status} with ${open} pending interrupt(s) listed, ` +
            `its last events ${events
              .slice(-6)
              .map((x) => x.type)
              .join(', ')}; the new build logged:\n${complaints()}`,
        );
      }
    }

    const resolve = (as: OpenWopClient, runId: string, nodeId: string, body: unknown) =>
      as.call<{ status: string }>('POST', `/v1/runs/${runId}/interrupts/${nodeId}`, body);
    const converse = (runId: string, body: Record<string, unknown>) =>
      client.call<{ turnIndex?: number }>('POST', `/v1/runs/${runId}:resolveInterrupt`, {
        nodeId: 'talk',
        ...body,
      });
    const turnsOf = async (runId: string) =>
      (
        await client.call<{
          turns: { turnIndex: number; role: string; messageId: string; content: unknown }[];
        }>('GET', `/v1/runs/${runId}/conversations/${encodeURIComponent(CONVERSATION_ID(runId))}?limit=1000`)
      ).turns;
    const waitTurns = (runId: string, n: number) =>
      waitFor(async () => ((await turnsOf(runId)).length >= n ? true : undefined), {
        timeoutMs: WAIT_MS,
        what: `conversation of ${runId} to reach ${n} turns`,
      });
    const exchange = async (runId: string, k: number) => {
      const sent = await converse(runId, {
        operation: 'exchange',
        turn: { messageId: `${runId}:user:${k}`, from: 'user', role: 'user', content: `answer ${k}` },
      });
      expect(sent.turnIndex).toBe(2 + 2 * k);
      await waitTurns(runId, 4 + 2 * k);
    };

    const connect = (host: RunningHost) => {
      client = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1 });
      second = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1b });
      anon = new OpenWopClient({ baseUrl: host.gateways[0]! });
    };

    /** On the old build: leaves every kind of pending work, then checks that none of it went on. */
    async function leavePendingWork(): Promise<Pending> {
      for (const w of WORKFLOWS) await client.call('POST', '/v1/workflows', w);
      const start = async (workflowId: string, inputs?: Record<string, unknown>) =>
        (await client.createRun({ workflowId, ...(inputs ? { inputs } : {}) })).runId;

      const approval = await start('conformance-approval');
      const quorum = await start('upgrade-quorum');
      const clarification = await start('conformance-clarification');
      const conversation = await start('upgrade-conversation');
      const snapshot = await waitFor(
        async () => {
          const s = await client.getRun(approval);
          return s.status === 'waiting-approval' &&
            (s.interrupt as Partial<Tokens> | undefined)?.interruptToken
            ? s
            : undefined;
        },
        { timeoutMs: WAIT_MS, what: `run ${approval} waiting with tokens` },
      );
      const tokens = snapshot.interrupt as unknown as Tokens;
      await waitStatus(quorum, 'waiting-approval');
      expect(
        await resolve(client, quorum, 'gate', { action: 'accept', feedback: 'first, before the upgrade' }),
      ).toMatchObject({ status: 'pending' });
      await waitStatus(clarification, 'waiting-input');
      await waitTurns(conversation, 2);
      for (let k = 0; k < EXCHANGES_BEFORE; k++) await exchange(conversation, k);

      // The timers last, so they are due only after the old build is gone.
      const timeout = await start('upgrade-timeout');
      const delay = await start('conformance-cancellable', { delayMs: TIMER_MS });
      await waitStatus(timeout, 'waiting-approval');
      await waitFor(async () => timerEvents(await client.listEvents(delay), 'timer.scheduled').length === 1, {
        timeoutMs: WAIT_MS,
        what: `the delay of ${delay} to be scheduled`,
      });
      // The premise of the timer checks: nothing has fired while the old build ran.
      expect(timerEvents(await client.listEvents(delay), 'timer.fired')).toEqual([]);
      expect((await client.getRun(timeout)).status).toBe('waiting-approval');
      return { approval, tokens, quorum, clarification, conversation, timeout, delay };
    }

    beforeAll(async () => {
      const oldBuild = await previousRelease();
      deployment = await DEPLOYMENTS[name]!();
      oldHost = await deployment.start(oldBuild);
      oldProcesses.push(...oldHost.processes);
      connect(oldHost);
      pending = await leavePendingWork();
      await oldHost.stop();
      oldHost = undefined;
      newHost = await deployment.start(REPO_ROOT);
      connect(newHost);
    }, 20 * 60_000);

    afterAll(async () => {
      await oldHost?.stop();
      await newHost?.stop();
      await deployment?.dispose();
    });

    it("the old processes ran the previous release's worktree, the new ones this checkout", async () => {
      const scripts = (ps: readonly AppProcess[]) => ps.map((p) => p.child.spawnargs[1]!).sort();
      const oldBuild = await previousRelease();
      expect(oldBuild).toContain(PREVIOUS.commit);
      expect(scripts(oldProcesses).every((s) => s.startsWith(`${oldBuild}/apps/`))).toBe(true);
      expect(scripts(newHost!.processes).every((s) => s.startsWith(`${REPO_ROOT}/apps/`))).toBe(true);
      // Every app the old build ran, the new one runs too (it may add services the old one lacks).
      expect(scripts(newHost!.processes).map((s) => s.replace(REPO_ROOT, ''))).toEqual(
        expect.arrayContaining(scripts(oldProcesses).map((s) => s.replace(oldBuild, ''))),
      );
    });

    it('the tokens the old build issued still verify, the new one shows the very same, and its callback URL resolves the approval once', async () => {
      const { approval, tokens } = pending;
      // The old build stored them as its token service consumed the log; the new one mints them on
      // demand from the same event and key (ADR 0007, revised): the same strings.
      expect((await client.getRun(approval)).interrupt).toMatchObject({
        interruptToken: tokens.interruptToken,
        inspectToken: tokens.inspectToken,
        tokenExpiresAt: tokens.tokenExpiresAt,
      });
      expect(await anon.call('GET', `/v1/interrupts/${tokens.inspectToken}`)).toMatchObject({
        runId: approval,
        interruptId: tokens.interruptId,
        intent: 'inspect',
      });
      expect(await anon.call('GET', `/v1/interrupts/${tokens.interruptToken}`)).toMatchObject({
        runId: approval,
        nodeId: 'gate',
        interruptId: tokens.interruptId,
        kind: 'approval',
        intent: 'resolve',
      });
      // The URL names the old build's address; the path and the token are what count.
      const res = await fetch(new URL(new URL(tokens.callbackUrl).pathname, client.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ resumeValue: { action: 'accept' } }),
      });
      expect({ status: res.status, body: await res.json() }).toMatchObject({
        status: 200,
        body: { runId: approval, interruptId: tokens.interruptId, status: 'resolved' },
      });
      await waitStatus(approval, 'completed');
      const again = await refusal(
        anon.call('POST', `/v1/interrupts/${tokens.interruptToken}`, { resumeValue: { action: 'accept' } }),
      );
      expect([again.status, again.code]).toEqual([409, 'interrupt_already_resolved']);
      const events = await client.listEvents(approval);
      expectCompletedOnce(events);
      expect(counts(events)).toMatchObject({
        'interrupt.requested': 1,
        'interrupt.resolved': 1,
        'node.completed@gate': 1,
      });
    });

    it('the quorum keeps the vote cast before the upgrade: the same principal cannot vote again, a second closes it', async () => {
      const { quorum } = pending;
      const twice = await refusal(resolve(client, quorum, 'gate', { action: 'accept' }));
      expect([twice.status, twice.code, twice.message]).toEqual([
        400,
        'validation_error',
        expect.stringMatching(/already voted/),
      ]);
      expect(
        await resolve(second, quorum, 'gate', { action: 'accept', feedback: 'second, after it' }),
      ).toMatchObject({ status: 'resolved' });
      await waitStatus(quorum, 'completed');
      const events = await client.listEvents(quorum);
      expectCompletedOnce(events);
      expect(
        events
          .filter((e) => e.type === 'approval.received')
          .map((e) => (e.payload as { decidedBy?: string }).decidedBy),
      ).toEqual(['key-t1', 'key-t1b']);
      expect(counts(events)).toMatchObject({ 'interrupt.resolved': 1, 'node.completed@after': 1 });
    });

    it('the clarification asked before the upgrade is answered after it', async () => {
      const { clarification } = pending;
      expect(await resolve(client, clarification, 'ask', { answers: { q1: 'green' } })).toMatchObject({
        status: 'resolved',
      });
      await waitStatus(clarification, 'completed');
      const events = await client.listEvents(clarification);
      expectCompletedOnce(events);
      expect(counts(events)).toMatchObject({
        'interrupt.requested': 1,
        'interrupt.resolved': 1,
        'node.completed@ask': 1,
      });
    });

    it('the conversation goes on where it was, closes, and holds every turn once', async () => {
      const { conversation } = pending;
      expect(await turnsOf(conversation)).toHaveLength(2 + 2 * EXCHANGES_BEFORE);
      for (let k = EXCHANGES_BEFORE; k < EXCHANGES_BEFORE + EXCHANGES_AFTER; k++)
        await exchange(conversation, k);
      await converse(conversation, { operation: 'close' });
      await waitStatus(conversation, 'completed');
      const exchanges = EXCHANGES_BEFORE + EXCHANGES_AFTER;
      const turns = await turnsOf(conversation);
      expect(turns.map((t) => t.turnIndex)).toEqual(Array.from({ length: 3 + 2 * exchanges }, (_, i) => i));
      expect(new Set(turns.map((t) => t.messageId)).size).toBe(turns.length);
      expect(turns.map((t) => t.role)).toEqual([
        'system',
        'agent',
        ...Array.from({ length: exchanges }, () => ['user', 'agent']).flat(),
        'system',
      ]);
      expect(turns.filter((t) => t.role === 'agent').map((t) => t.content)).toEqual(SCRIPT);
      expectCompletedOnce(await client.listEvents(conversation));
    });

    it('the approval timeout and the delay the old build armed fire once under the new one', async () => {
      const { timeout, delay } = pending;
      await waitStatus(timeout, 'completed', TIMER_MS + WAIT_MS);
      const timedOut = await client.listEvents(timeout);
      expectCompletedOnce(timedOut);
      const resolved = timedOut
        .filter((e) => e.type === 'interrupt.resolved')
        .map((e) => e.payload as Record<string, unknown>);
      expect(resolved).toEqual([expect.objectContaining({ nodeId: 'gate', action: 'timeout' })]);
      expect(counts(timedOut)).toMatchObject({ 'node.failed@gate': 1, 'node.completed@on-timeout': 1 });
      expect(counts(timedOut)['node.started@on-accept']).toBeUndefined();

      await waitStatus(delay, 'completed', TIMER_MS + WAIT_MS);
      const delayed = await client.listEvents(delay);
      expectCompletedOnce(delayed);
      expect(timerEvents(delayed, 'timer.fired')).toHaveLength(1);
      expect(counts(delayed)).toMatchObject({ 'node.completed@wait': 1, 'node.completed@done': 1 });
    });

    it('neither build dead-lettered anything', () => {
      const lines = [...oldProcesses, ...(newHost?.processes ?? [])].flatMap((p) =>
        p
          .output()
          .split('\n')
          .filter((l) => l.includes('dead-lettered'))
          .map((l) => `${p.name}: ${l}`),
      );
      expect(lines).toEqual([]);
    });
  },
);
