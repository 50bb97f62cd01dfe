import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { assertErrorEnvelope, Topics, type RunEventDoc } from '@openwop/contracts';
import { openDatabase } from '@openwop/platform-db';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { compareProjections, ProjectorModule, rebuildProjections } from '@openwop/projector';
import {
  createTestDatabase,
  TEST_API_KEYS_JSON,
  TEST_KEYS,
  waitFor,
  type TestDatabase,
} from '@openwop/testing';
import { configureGatewayApp } from '../configure-gateway-app';
import { GatewayModule } from '../gateway.module';

// Conversation run events published on the real Kafka run-event topic (a fresh namespace), folded
// by the real projector consumer into a fresh Postgres database, read back through the gateway.

const NS = `test-conv-${randomBytes(4).toString('hex')}`;
const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';

let db: TestDatabase;
let rebuildDb: TestDatabase | undefined;
let platform: Platform;
let app: NestExpressApplication;
let base: string;
const savedKeys = process.env.WOP_API_KEYS;

/** One run's log, numbered as the engine numbers it: gapless sequences from 0. */
class RunLog {
  readonly events: RunEventDoc[] = [];
  constructor(
    readonly runId: string,
    readonly tenant: string,
  ) {}

  add(type: RunEventDoc['type'], payload: unknown, nodeId?: string): RunEventDoc {
    const sequence = this.events.length;
    const doc: RunEventDoc = {
      eventId: `${this.runId}:${sequence}`,
      runId: this.runId,
      type,
      payload,
      sequence,
      timestamp: new Date(Date.UTC(2026, 10, 22, 1, 0, 0, sequence)).toISOString(),
      ...(nodeId ? { nodeId } : {}),
    };
    this.events.push(doc);
    return doc;
  }

  /** Publishes events (by default every one not yet published) keyed by run id, as the engine does. */
  async publish(docs: readonly RunEventDoc[]): Promise<void> {
    await platform.bus.publish(
      Topics.runEvents,
      docs.map((value) => ({ key: this.runId, value })),
    );
  }
}

const turn = (cid: string, turnIndex: number, role: 'user' | 'agent' | 'system', content: unknown) => ({
  messageId: `${cid}:${turnIndex}:${role}`,
  from: role === 'agent' ? 'host:planner' : role,
  content,
  ts: 1_790_000_000_000 + turnIndex,
  role,
  turnIndex,
  ...(role === 'agent' ? { speakerId: 'host:planner' } : {}),
});

/** A run with a conversation on node `chat`: opened, `agentTurns` streamed agent turns each after a user turn. */
function conversationRun(runId: string, tenant: string, exchanges: number): { log: RunLog; cid: string } {
  const log = new RunLog(runId, tenant);
  const cid = `${runId}:chat:0`;
  log.add('run.started', { workflowId: 'wf-chat', owner: { tenant, principal: 'p' } });
  log.add('node.started', { nodeId: 'chat', typeId: 'agent.conversation' }, 'chat');
  log.add(
    'conversation.opened',
    {
      conversationId: cid,
      participants: [{ agentId: 'host:planner' }],
      initialTurn: turn(cid, 0, 'system', 'You plan trips.'),
    },
    'chat',
  );
  for (let i = 1; i <= exchanges; i++) {
    const role = i % 2 === 1 ? 'agent' : 'user';
    if (role === 'agent') {
      const meta = {
        conversationId: cid,
        messageId: `${cid}:${i}:agent`,
        turnIndex: i,
        speakerId: 'host:planner',
      };
      log.add('output.chunk', { nodeId: 'chat', runId, chunk: `reply `, isLast: false, meta }, 'chat');
      log.add('output.chunk', { nodeId: 'chat', runId, chunk: `${i}`, isLast: true, meta }, 'chat');
    }
    log.add(
      'conversation.exchanged',
      { conversationId: cid, turnIndex: i, turn: turn(cid, i, role, `reply ${i}`) },
      'chat',
    );
  }
  return { log, cid };
}

function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

interface Body {
  readonly [key: string]: unknown;
  readonly error?: string;
  readonly conversations?: readonly Record<string, unknown>[];
  readonly turns?: readonly {
    turnIndex: number;
    role: string;
    speakerId?: string;
    content: unknown;
    messageId: string;
  }[];
  readonly nextCursor?: number;
}

async function get(path: string, key: string = TEST_KEYS.t1): Promise<{ status: number; json: Body }> {
  const res = await fetch(`${base}${path}`, { headers: auth(key) });
  return { status: res.status, json: (await res.json()) as Body };
}

async function projectedSequence(runId: string): Promise<number> {
  const rows = await platform.dataSource.query<{ last_sequence: number }[]>(
    'SELECT last_sequence FROM runs WHERE run_id = $1',
    [runId],
  );
  return rows[0]?.last_sequence ?? -1;
}

/** Waits until the projector has applied the run's log up to `sequence`. */
async function projected(log: RunLog, sequence = log.events.length - 1): Promise<void> {
  await waitFor(async () => (await projectedSequence(log.runId)) >= sequence, {
    timeoutMs: 30_000,
    what: `${log.runId} projected to ${sequence}`,
  });
}

/** Reads SSE frames until the server closes the stream. */
async function readSse(path: string, headers: Record<string, string> = {}, timeoutMs = 30_000) {
  const res = await fetch(`${base}${path}`, {
    headers: { accept: 'text/event-stream', ...auth(TEST_KEYS.t1), ...headers },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      return {
        id: Number(field('id')),
        event: field('event')!,
        data: JSON.parse(field('data')!) as Record<string, unknown>,
      };
    });
}

const runA = conversationRun(`conv-a-${randomBytes(3).toString('hex')}`, 't1', 120);
const runOther = conversationRun(`conv-t2-${randomBytes(3).toString('hex')}`, 't2', 2);

beforeAll(async () => {
  db = await createTestDatabase('conversations');
  process.env.WOP_API_KEYS = TEST_API_KEYS_JSON;
  platform = await startPlatform(
    readHostConfig('distributed', {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      OPENWOP_NAMESPACE: NS,
      KAFKA_PARTITIONS: '2',
    }),
  );
  app = await NestFactory.create<NestExpressApplication>(
    rootModule(platform, [ProjectorModule, GatewayModule]),
    { logger: ['error'] },
  );
  configureGatewayApp(app);
  await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  await runA.log.publish(runA.log.events);
  await runOther.log.publish(runOther.log.events);
  await projected(runA.log);
  await projected(runOther.log);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await db?.drop();
  await rebuildDb?.drop();
  if (savedKeys === undefined) delete process.env.WOP_API_KEYS;
  else process.env.WOP_API_KEYS = savedKeys;
}, 60_000);

describe('conversation read models through the projector', () => {
  it('lists the run conversations with roster and turn count', async () => {
    const res = await get(`/v1/runs/${runA.log.runId}/conversations`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      conversations: [
        {
          conversationId: runA.cid,
          nodeId: 'chat',
          status: 'open',
          turnCount: 121,
          openedAt: runA.log.events[2]!.timestamp,
          participants: [{ agentId: 'host:planner' }],
        },
      ],
    });
  });

  it('pages the transcript in turnIndex order: default 100, then the rest; limit and after', async () => {
    const path = `/v1/runs/${runA.log.runId}/conversations/${encodeURIComponent(runA.cid)}`;
    const first = await get(path);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      conversationId: runA.cid,
      nodeId: 'chat',
      status: 'open',
      nextCursor: 99,
    });
    expect(first.json.turns!.map((t) => t.turnIndex)).toEqual([...Array(100).keys()]);
    expect(first.json.turns![0]).toEqual(turn(runA.cid, 0, 'system', 'You plan trips.'));
    expect(first.json.turns![1]).toEqual(turn(runA.cid, 1, 'agent', 'reply 1'));
    const rest = await get(`${path}?after=99`);
    expect(rest.json.turns!.map((t) => t.turnIndex)).toEqual([...Array(21).keys()].map((i) => 100 + i));
    expect(rest.json).not.toHaveProperty('nextCursor');
    const page = await get(`${path}?after=10&limit=5`);
    expect(page.json.turns!.map((t) => t.turnIndex)).toEqual([11, 12, 13, 14, 15]);
    expect(page.json.nextCursor).toBe(15);
    const all = await get(`${path}?limit=1000`);
    expect(all.json.turns).toHaveLength(121);
  });

  it.each([
    ['after=abc'],
    ['after=-2'],
    ['after=1.5'],
    ['limit=0'],
    ['limit=1001'],
    ['limit=x'],
    ['limit=5&limit=6'],
  ])('400 validation_error for ?%s', async (query) => {
    const res = await get(
      `/v1/runs/${runA.log.runId}/conversations/${encodeURIComponent(runA.cid)}?${query}`,
    );
    expect({ status: res.status, error: res.json.error }).toEqual({ status: 400, error: 'validation_error' });
    assertErrorEnvelope(res.json);
  });

  it('hides another tenant runs and conversations as 404, and 404s an unknown conversation or run', async () => {
    const otherCid = encodeURIComponent(runOther.cid);
    for (const path of [
      `/v1/runs/${runOther.log.runId}/conversations`,
      `/v1/runs/${runOther.log.runId}/conversations/${otherCid}`,
      `/v1/runs/${runA.log.runId}/conversations/${otherCid}`,
      `/v1/runs/${runA.log.runId}/conversations/nope`,
      `/v1/runs/no-such-run/conversations`,
    ]) {
      const res = await get(path);
      expect({ path, status: res.status, error: res.json.error }).toEqual({
        path,
        status: 404,
        error: 'not_found',
      });
      assertErrorEnvelope(res.json);
    }
    const own = await get(`/v1/runs/${runOther.log.runId}/conversations/${otherCid}`, TEST_KEYS.t2);
    expect(own.json.turns!.map((t) => t.turnIndex)).toEqual([0, 1, 2]);
    expect((await get(`/v1/runs/${runA.log.runId}/conversations`, TEST_KEYS.readonly)).status).toBe(200);
  });

  it('changes nothing when conversation events are redelivered, then closes on conversation.closed', async () => {
    const count = async (sql: string) =>
      Number((await platform.dataSource.query<{ n: string }[]>(sql, [runA.log.runId]))[0]!.n);
    const before = {
      events: await count('SELECT count(*)::text AS n FROM run_events WHERE run_id = $1'),
      turns: await count('SELECT count(*)::text AS n FROM conversation_turns WHERE run_id = $1'),
      conversation: await platform.dataSource.query('SELECT * FROM conversations WHERE run_id = $1', [
        runA.log.runId,
      ]),
    };
    await runA.log.publish(runA.log.events.filter((e) => e.type.startsWith('conversation.')));
    const closed = runA.log.add(
      'conversation.closed',
      {
        conversationId: runA.cid,
        turnIndex: 121,
        finalTurn: turn(runA.cid, 121, 'user', 'thanks'),
        outcome: { booked: true },
      },
      'chat',
    );
    const completed = runA.log.add('run.completed', { outputs: { reply: 'reply 119' } });
    await runA.log.publish([closed, completed]);
    await projected(runA.log);
    expect(await count('SELECT count(*)::text AS n FROM run_events WHERE run_id = $1')).toBe(
      before.events + 2,
    );
    expect(await count('SELECT count(*)::text AS n FROM conversation_turns WHERE run_id = $1')).toBe(
      before.turns + 1,
    );
    expect(before.conversation).toEqual([expect.objectContaining({ status: 'open', turn_count: 121 })]);
    const list = await get(`/v1/runs/${runA.log.runId}/conversations`);
    expect(list.json.conversations).toEqual([
      expect.objectContaining({
        status: 'closed',
        turnCount: 122,
        closedAt: closed.timestamp,
        outcome: { booked: true },
      }),
    ]);
  });
});

describe('SSE of conversations', () => {
  it('messages mode sends chunks as ai.message.chunk and the conversation events, then closes; Last-Event-ID resumes', async () => {
    const frames = await readSse(`/v1/runs/${runA.log.runId}/events?streamMode=messages`);
    const expected = runA.log.events.filter(
      (e) => e.type === 'output.chunk' || e.type.startsWith('conversation.'),
    );
    expect(frames.map((f) => f.id)).toEqual(expected.map((e) => e.sequence));
    expect(frames[0]).toMatchObject({
      event: 'conversation.opened',
      data: { type: 'conversation.opened', payload: { conversationId: runA.cid } },
    });
    expect(frames[1]).toEqual({
      id: 3,
      event: 'ai.message.chunk',
      data: {
        nodeId: 'chat',
        runId: runA.log.runId,
        chunk: 'reply ',
        isLast: false,
        meta: {
          conversationId: runA.cid,
          messageId: `${runA.cid}:1:agent`,
          turnIndex: 1,
          speakerId: 'host:planner',
        },
      },
    });
    expect(frames[3]).toMatchObject({ event: 'conversation.exchanged', data: { payload: { turnIndex: 1 } } });
    expect(frames.at(-1)).toMatchObject({ event: 'conversation.closed' });
    const resumed = await readSse(`/v1/runs/${runA.log.runId}/events?streamMode=messages`, {
      'last-event-id': '4',
    });
    expect(resumed.map((f) => f.id)).toEqual(expected.filter((e) => e.sequence > 4).map((e) => e.sequence));
  });

  it('updates mode carries conversation events but no chunks', async () => {
    const frames = await readSse(`/v1/runs/${runA.log.runId}/events`);
    const types = frames.map((f) => f.event);
    expect(types).not.toContain('output.chunk');
    expect(types).not.toContain('ai.message.chunk');
    expect(types.filter((t) => t.startsWith('conversation.'))).toHaveLength(122);
    expect(types.at(-1)).toBe('run.completed');
  });

  it('streams live turns of a running conversation until the run ends', async () => {
    const live = conversationRun(`conv-live-${randomBytes(3).toString('hex')}`, 't1', 0);
    await live.log.publish(live.log.events);
    await projected(live.log);
    const stream = readSse(`/v1/runs/${live.log.runId}/events?streamMode=messages`, { 'last-event-id': '2' });
    const meta = { conversationId: live.cid, messageId: `${live.cid}:1:agent`, turnIndex: 1 };
    const later = [
      live.log.add(
        'output.chunk',
        { nodeId: 'chat', runId: live.log.runId, chunk: 'Hi', isLast: true, meta },
        'chat',
      ),
      live.log.add(
        'conversation.exchanged',
        { conversationId: live.cid, turnIndex: 1, turn: turn(live.cid, 1, 'agent', 'Hi') },
        'chat',
      ),
      live.log.add(
        'conversation.closed',
        {
          conversationId: live.cid,
          turnIndex: 2,
          finalTurn: turn(live.cid, 2, 'user', 'bye'),
          outcome: null,
        },
        'chat',
      ),
      live.log.add('run.completed', { outputs: {} }),
    ];
    await live.log.publish(later);
    const frames = await stream;
    expect(frames.map((f) => [f.id, f.event])).toEqual([
      [3, 'ai.message.chunk'],
      [4, 'conversation.exchanged'],
      [5, 'conversation.closed'],
    ]);
  });
});

describe('OpenAPI', () => {
  it('documents both conversation routes', async () => {
    const res = await fetch(`${base}/v1/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/runs/{runId}/conversations',
        '/v1/runs/{runId}/conversations/{conversationId}',
      ]),
    );
  });
});

describe('projector rebuild', () => {
  it('rebuilds conversations and turns from the topic identical to the live tables', async () => {
    rebuildDb = await createTestDatabase('conversations_rebuild');
    const target = await openDatabase({ url: rebuildDb.url, applicationName: 'conversations-rebuild-test' });
    try {
      const result = await rebuildProjections([BROKERS], target, NS);
      expect(result.events).toBeGreaterThan(runA.log.events.length);
      const turns = await target.query<{ n: string }[]>('SELECT count(*)::text AS n FROM conversation_turns');
      expect(Number(turns[0]!.n)).toBeGreaterThan(120);
      expect(await compareProjections(platform.dataSource, target)).toEqual([]);
    } finally {
      await target.destroy();
    }
  });
});
