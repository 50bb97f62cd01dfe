import { OpenWopClient } from '@openwop/sdk';
import {
  createTestDatabase,
  startEmbeddedHost,
  TEST_KEYS,
  waitFor,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { killLeftovers, records, runWop, spawnWop, WOP } from './cli-process';

// `wop run` on a conversation step (`agent.conversation`, scripted provider) against a real
// embedded host: at a real terminal (a pty from util-linux `script`), with piped input, and
// interrupted with Ctrl+C then resumed with `wop attach`. What the run recorded is read back
// through the API.

const EXAMPLE = 'examples/conversation.yaml';
const REPLIES = [
  'Hello! Where shall we go?',
  'Noted. How many days?',
  'Done: three days in Lisbon.',
] as const;

/** `agent: <reply>` then the `> ` prompt (readline draws it with cursor escapes after it). */
const prompted = (reply: string): RegExp =>
  new RegExp(`agent: ${reply.replace(/[.?*+^$()[\]{}|\\]/g, '\\$&')}\\s*\\r?\\n[^]*> `);

describe('wop conversations against the embedded host', () => {
  let db: TestDatabase;
  let host: RunningHost;
  let env: Record<string, string>;
  let client: OpenWopClient;

  beforeAll(async () => {
    db = await createTestDatabase('e2e_cli_conv');
    // Scripted replies come token by token, 40 ms apart, so streaming is visible at the terminal.
    host = await startEmbeddedHost({ databaseUrl: db.url, env: { AGENT_TOKEN_DELAY_MS: '40' } });
    env = { WOP_URL: host.gateways[0]!, WOP_API_KEY: TEST_KEYS.t1 };
    client = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1 });
  });
  afterEach(killLeftovers);
  afterAll(async () => {
    await host?.stop();
    await db?.drop();
  });

  const runIdOf = (text: string): string => {
    const m = /run ([0-9a-f-]{36})/.exec(text);
    if (!m) throw new Error(`no run id in:\n${text}`);
    return m[1]!;
  };

  /** The run completed, its chat step's output is the last reply, and the transcript holds exactly these turns. */
  async function expectFinished(runId: string, userTurns: string[]): Promise<void> {
    await waitFor(async () => (await client.getRun(runId)).status === 'completed', {
      timeoutMs: 20_000,
      what: `run ${runId} completed`,
    });
    const events = await client.listEvents(runId);
    const chat = events.find((e) => e.type === 'node.completed' && e.nodeId === 'chat');
    expect(chat?.payload).toMatchObject({ outputs: { reply: REPLIES[2] } });
    const [conversation] = await client.listConversations(runId);
    expect(conversation).toMatchObject({ nodeId: 'chat', status: 'closed' });
    const page = await client.getConversation(runId, conversation!.conversationId);
    // The host's system turns (the opening, the close) are its own; the talk is what we check.
    expect(page.turns.filter((t) => t.role !== 'system').map((t) => [t.role, t.content])).toEqual([
      ['agent', REPLIES[0]],
      ['user', userTurns[0]],
      ['agent', REPLIES[1]],
      ['user', userTurns[1]],
      ['agent', REPLIES[2]],
    ]);
  }

  it('at a terminal: the replies stream, two typed turns, an empty line closes; the step output is the last reply', async () => {
    // util-linux `script` gives wop a real pty; what we write to its stdin is typed at that terminal.
    const command = `${process.execPath} ${WOP} run ${EXAMPLE}`;
    const tty = spawnWop([], env, { file: 'script', args: ['-q', '-e', '-c', command, '/dev/null'] });
    // What the terminal showed after each write: a reply is streamed if it was ever partly there.
    const screens: string[] = [];
    tty.child.stdout.on('data', () => screens.push(tty.stdout()));
    const streamed = (reply: string) =>
      screens.some((t) => t.includes(`agent: ${reply.split(' ')[0]!}`) && !t.includes(`agent: ${reply}`));
    await tty.waitFor(prompted(REPLIES[0]));
    tty.write('Lisbon\r');
    await tty.waitFor(prompted(REPLIES[1]));
    tty.write('3\r');
    await tty.waitFor(prompted(REPLIES[2]));
    tty.write('\r');
    const { code } = await tty.exit;
    expect({ code, out: tty.stdout() }).toMatchObject({
      code: 0,
      out: expect.stringContaining('✔ run completed'),
    });
    expect(tty.stdout()).toContain('conversation closed');
    expect(REPLIES.map(streamed)).toEqual([true, true, true]);
    await expectFinished(runIdOf(tty.stdout()), ['Lisbon', '3']);
  });

  it('at a terminal, Ctrl+C at the prompt leaves the conversation open and the run waiting (exit 130)', async () => {
    const command = `${process.execPath} ${WOP} run ${EXAMPLE}`;
    const tty = spawnWop([], env, { file: 'script', args: ['-q', '-e', '-c', command, '/dev/null'] });
    await tty.waitFor(prompted(REPLIES[0]));
    tty.write('\x03');
    expect((await tty.exit).code).toBe(130);
    const runId = runIdOf(tty.stdout());
    // Named as what it is (its wire status is waiting-approval), on a line of its own below the prompt.
    expect(tty.stdout()).toMatch(
      new RegExp(
        `\\n(\\x1b\\[[0-9;]*[A-Za-z])*run ${runId} waits for a turn in the conversation at step chat; continue with: wop attach ${runId}`,
      ),
    );
    expect((await client.getRun(runId)).status).toBe('waiting-approval');
    const [open] = await client.listConversations(runId);
    expect(open).toMatchObject({ status: 'open' });
  });

  it('with piped input: each line is a turn, end of input closes; --json shows every reply streamed as chunks', async () => {
    const r = await runWop(['run', EXAMPLE, '--json'], env, 'Lisbon\n3\n');
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    const lines = records(r.stdout);
    const runId = lines[0]!.runId as string;
    const chunks = lines
      .filter((l) => l.type === 'event' && (l.event as { type: string }).type === 'ai.message.chunk')
      .map((l) => (l.event as { payload: { chunk: string; meta: { turnIndex: number } } }).payload);
    const byTurn = new Map<number, string>();
    for (const c of chunks) byTurn.set(c.meta.turnIndex, (byTurn.get(c.meta.turnIndex) ?? '') + c.chunk);
    expect([...byTurn.values()]).toEqual(REPLIES);
    expect(r.stderr).toContain('> Lisbon\n');
    expect(lines[lines.length - 1]).toEqual({ type: 'result', runId, status: 'completed' });
    await expectFinished(runId, ['Lisbon', '3']);
  });

  it('Ctrl+C mid-conversation leaves it open and the run waiting (exit 130, no half turn); wop attach finishes it', async () => {
    const first = spawnWop(['run', EXAMPLE], env);
    await first.waitFor(`agent: ${REPLIES[0]}`);
    first.write('Lisbon\n');
    await first.waitFor(`agent: ${REPLIES[1]}`);
    first.child.kill('SIGINT');
    expect((await first.exit).code).toBe(130);
    const runId = runIdOf(first.stdout());
    expect(first.stdout()).toContain(
      `\nrun ${runId} waits for a turn in the conversation at step chat; continue with: wop attach ${runId}`,
    );
    expect((await client.getRun(runId)).status).toBe('waiting-approval');
    const [open] = await client.listConversations(runId);
    expect(open).toMatchObject({ status: 'open' });
    expect((await client.getConversation(runId, open!.conversationId)).turns.map((t) => t.role)).toEqual([
      'system',
      'agent',
      'user',
      'agent',
    ]);

    const attached = await runWop(['attach', runId], env, '3\n');
    expect({ code: attached.code, stderr: attached.stderr }).toEqual({ code: 0, stderr: '' });
    expect(attached.stdout).toContain(
      `run ${runId} (workflow example-conversation) waits for a turn in the conversation at step chat\n`,
    );
    expect(attached.stdout).toContain(`agent: ${REPLIES[2]}`);
    await expectFinished(runId, ['Lisbon', '3']);
  });

  it('wop conversations show prints the transcript, and as NDJSON with --json', async () => {
    const r = await runWop(['run', EXAMPLE, '--json'], env, 'Porto\n2\n');
    const runId = records(r.stdout)[0]!.runId as string;
    const shown = await runWop(['conversations', 'show', runId], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('[2] user: Porto');
    const json = await runWop(['conversations', 'show', runId, '--json'], env);
    expect(
      records(json.stdout)
        .filter((l) => l.role !== 'system')
        .map((l) => [l.type, l.role, l.content]),
    ).toEqual([
      ['turn', 'agent', REPLIES[0]],
      ['turn', 'user', 'Porto'],
      ['turn', 'agent', REPLIES[1]],
      ['turn', 'user', '2'],
      ['turn', 'agent', REPLIES[2]],
    ]);
  });
});
