import { PassThrough } from 'node:stream';
import type { OpenWopClient, RunSnapshotBody, RawStreamFrame } from '@openwop/sdk';
import { Output } from '../util/output';
import type { PresetAnswers } from './interrupt-answers';
import { Interruption } from './interruption';
import { LineInput } from './line-input';
import { RunFollower } from './run.follower';

// The follower against a scripted client: the frames it streams, the snapshot it reads, and the
// calls it receives; what wop printed and its exit code are checked.

const RUN = '00000000-0000-4000-8000-000000000001';

interface Script {
  readonly frames: RawStreamFrame[];
  readonly snapshot: RunSnapshotBody;
  /** Called once every frame was handed over (the stream then waits until aborted). */
  readonly idle?: () => void;
}

function harness(script: Script, preset: PresetAnswers = {}, options: { cancelOnInterrupt?: boolean } = {}) {
  const calls: string[] = [];
  const interruption = new Interruption();
  const client = {
    async *streamEvents(_runId: string, o: { signal?: AbortSignal }) {
      for (const frame of script.frames) yield frame;
      script.idle?.();
      if (!o.signal?.aborted)
        await new Promise((r) => o.signal?.addEventListener('abort', r, { once: true }));
    },
    getRun: async () => script.snapshot,
    getConversation: async () => ({ status: 'open', turns: [] }),
    resolveInterrupt: async (_r: string, nodeId: string, value: unknown) => {
      calls.push(`resolve ${nodeId} ${JSON.stringify(value)}`);
      return { status: 'resolved' };
    },
    cancelRun: async () => {
      calls.push('cancel');
      return { status: 'cancelled' };
    },
  } as unknown as OpenWopClient;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let printed = '';
  stdout.on('data', (c: Buffer) => (printed += c.toString()));
  stderr.on('data', (c: Buffer) => (printed += c.toString()));
  const stdin = new PassThrough();
  const out = new Output(false, stdout, stderr, {});
  const input = new LineInput(stdin, stdout, () => interruption.request());
  const follower = new RunFollower(client, RUN, out, input, interruption, {
    cancelOnInterrupt: options.cancelOnInterrupt ?? false,
    preset,
  });
  return {
    stdin,
    calls,
    interruption,
    printed: () => printed,
    follow: async () => {
      try {
        return await follower.follow();
      } finally {
        input.close();
      }
    },
  };
}

const event = (type: string, nodeId: string, payload: Record<string, unknown>): RawStreamFrame => ({
  event: 'updates',
  data: { type, nodeId, payload },
});

const approvalWait: Script = {
  frames: [event('node.suspended', 'review', { kind: 'approval', interruptId: 'i1' })],
  snapshot: {
    runId: RUN,
    workflowId: 'example-approval',
    status: 'waiting-approval',
    currentNodeId: 'review',
    interrupt: {
      interruptId: 'i1',
      nodeId: 'review',
      kind: 'approval',
      requestedAt: '2026-01-01T00:00:00.000Z',
      data: { title: 'Publish?', actions: ['accept', 'reject'] },
    },
  },
};

const conversationWait = (idle?: () => void): Script => ({
  frames: [
    event('conversation.opened', 'chat', { conversationId: 'c1' }),
    {
      event: 'messages',
      data: { nodeId: 'chat', chunk: 'Hello! Where', meta: { conversationId: 'c1', turnIndex: 1 } },
    },
  ],
  snapshot: {
    runId: RUN,
    workflowId: 'example-conversation',
    status: 'waiting-approval',
    currentNodeId: 'chat',
    interrupt: {
      interruptId: 'i2',
      nodeId: 'chat',
      kind: 'conversation.exchange',
      requestedAt: '2026-01-01T00:00:00.000Z',
      data: { conversationId: 'c1' },
    },
  },
  ...(idle ? { idle } : {}),
});

/** Resolves once `condition` holds, checked on each turn of the event loop; fails after 5 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe('RunFollower', () => {
  it('end of input at an approval leaves the run waiting with exit 4, not 130, and cancels nothing', async () => {
    const h = harness(approvalWait, {}, { cancelOnInterrupt: true });
    h.stdin.end();
    expect(await h.follow()).toBe(4);
    expect(h.calls).toEqual([]);
    expect(h.printed()).toContain(
      `input ended; run ${RUN} waits for an approval at step review; continue with: wop attach ${RUN}\n`,
    );
  });

  it('Ctrl+C at an approval still exits 130', async () => {
    const h = harness({ ...approvalWait, idle: undefined });
    const code = h.follow();
    // The prompt is up once the menu is printed; Ctrl+C then.
    await until(() => h.printed().includes('actions:'), 'the approval menu');
    h.interruption.request();
    expect(await code).toBe(130);
    expect(h.calls).toEqual([]);
  });

  it('Ctrl+C in the middle of a streamed reply ends its line before saying where the run stands', async () => {
    const h: ReturnType<typeof harness> = harness(conversationWait(() => h.interruption.request()));
    expect(await h.follow()).toBe(130);
    expect(h.printed()).toContain(`agent: Hello! Where\nrun ${RUN} `);
  });

  it('names a waiting conversation as a conversation, not by its wire status waiting-approval', async () => {
    const h: ReturnType<typeof harness> = harness(conversationWait(() => h.interruption.request()));
    await h.follow();
    expect(h.printed()).toContain(
      `run ${RUN} waits for a turn in the conversation at step chat; continue with: wop attach ${RUN}`,
    );
    expect(h.printed()).not.toContain('waiting-approval');
  });

  it('shows the questions of a clarification answered by --answer, with the answers given', async () => {
    const h = harness(
      {
        frames: [event('node.suspended', 'details', { kind: 'clarification', interruptId: 'i3' })],
        snapshot: {
          runId: RUN,
          workflowId: 'example-clarification',
          status: 'waiting-input',
          interrupt: {
            interruptId: 'i3',
            nodeId: 'details',
            kind: 'clarification',
            requestedAt: '2026-01-01T00:00:00.000Z',
            data: {
              questions: [
                { id: 'city', question: 'Which city?' },
                { id: 'days', question: 'How many days?' },
              ],
            },
          },
        },
        idle: () => h.interruption.request(),
      },
      { answers: { city: 'Lisbon', days: 3 } },
    );
    h.stdin.end();
    await h.follow();
    expect(h.printed()).toContain(
      'Clarification needed:\n  Which city?\ncity> Lisbon (from --answer)\n  How many days?\ndays> 3 (from --answer)\n',
    );
    expect(h.calls).toEqual(['resolve details {"answers":{"city":"Lisbon","days":3}}']);
  });
});
