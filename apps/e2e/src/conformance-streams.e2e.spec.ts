import { OpenWopClient, SseParser, type SseMessage } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { waitStatus } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// The run event stream as stream-modes.md and rest-endpoints.md §SSE define it, on both modes:
// every stream mode, mixed modes, Last-Event-ID (also across gateways), keep-alives, the close at
// the terminal event, `?bufferMs=` batches, the poll fallback, and the low-confidence suspension
// as a stream reader sees it (agentConfidenceEscalation). Conformance rows:
// /work/notes/conformance-rows-streams.md.

const TERMINAL = ['run.completed', 'run.failed', 'run.cancelled'];
/** Event types of the `updates` tier these fixtures produce (stream-modes.md §Mode-to-event mapping). */
const UPDATES_TIER = new Set([
  ...TERMINAL,
  'run.started',
  'node.completed',
  'node.failed',
  'node.suspended',
  'approval.requested',
  'approval.received',
  'interrupt.requested',
  'interrupt.resolved',
]);
/** Reading a stream to its end never takes this long unless the host fails to close it. */
const STREAM_DEADLINE_MS = 20_000;

interface Doc {
  readonly type: string;
  readonly sequence: number;
  readonly payload: Record<string, unknown>;
}

/** One SSE response read step by step, so a test can act while it is open. */
class SseSession {
  readonly frames: SseMessage[] = [];
  /** The server ended the response. */
  closedByServer = false;
  private raw = '';
  private readonly parser = new SseParser();
  private readonly decoder = new TextDecoder();

  private constructor(
    readonly status: number,
    readonly contentType: string | null,
    private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
    private readonly controller: AbortController,
    readonly body: unknown,
  ) {}

  static async open(
    url: string,
    headers: Record<string, string> = {},
    apiKey: string = TEST_KEYS.t1,
  ): Promise<SseSession> {
    const controller = new AbortController();
    const res = await fetch(url, {
      headers: { Accept: 'text/event-stream', Authorization: `Bearer ${apiKey}`, ...headers },
      signal: controller.signal,
    });
    if (res.status !== 200 || !res.body) {
      return new SseSession(
        res.status,
        res.headers.get('content-type'),
        undefined,
        controller,
        await res.json().catch(() => undefined),
      );
    }
    return new SseSession(
      res.status,
      res.headers.get('content-type'),
      res.body.getReader(),
      controller,
      undefined,
    );
  }

  /** `:keepalive` comment lines received so far. */
  get keepalives(): number {
    return (this.raw.match(/^:keepalive\r?$/gm) ?? []).length;
  }

  get docs(): Doc[] {
    return this.frames.map((f) => JSON.parse(f.data) as Doc);
  }

  get ids(): number[] {
    return this.frames.map((f) => Number(f.id));
  }

  /** Reads until `done(this)` holds; fails when the stream closes first or the deadline passes. */
  async until(done: (s: SseSession) => boolean, what: string, timeoutMs = STREAM_DEADLINE_MS): Promise<this> {
    if (!this.reader) throw new Error(`no stream: HTTP ${this.status}`);
    const timer = setTimeout(() => this.controller.abort(), timeoutMs);
    try {
      while (!done(this)) {
        const { done: ended, value } = await this.reader.read().catch((error: unknown) => {
          throw new Error(
            `${what}: not seen within ${timeoutMs} ms (${String(error)}); frames ${this.frames.map((f) => f.event).join(',')}`,
          );
        });
        if (ended) {
          this.closedByServer = true;
          if (!done(this))
            throw new Error(
              `the stream closed before ${what}; frames ${this.frames.map((f) => f.event).join(',')}`,
            );
          break;
        }
        const text = this.decoder.decode(value, { stream: true });
        this.raw += text;
        this.frames.push(...this.parser.push(text));
      }
    } finally {
      clearTimeout(timer);
    }
    return this;
  }

  /** Reads until the server closes the response. */
  toEnd(): Promise<this> {
    return this.until((s) => s.closedByServer, 'the server closing the stream');
  }

  /** Leaves, as a client whose connection dropped. */
  close(): void {
    this.controller.abort();
  }
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('the run event stream, %s mode', (mode) => {
  let hut: HostUnderTest;
  let client: OpenWopClient;
  let gateway: string;
  /** Another gateway when the mode runs several: a reconnect may land on any instance. */
  let otherGateway: string;

  beforeAll(async () => {
    hut = await MODES[mode]({ SSE_KEEPALIVE_MS: '300' });
    gateway = hut.host.gateways[0]!;
    otherGateway = hut.host.gateways[1] ?? gateway;
    client = new OpenWopClient({ baseUrl: gateway, apiKey: TEST_KEYS.t1 });
  });
  afterAll(async () => {
    await hut?.stop();
  });

  const events = (runId: string, query = '', headers: Record<string, string> = {}, base = gateway) =>
    SseSession.open(`${base}/v1/runs/${runId}/events${query}`, headers);
  const fullLog = async (runId: string): Promise<Doc[]> =>
    (await client.listEvents(runId)) as unknown as Doc[];
  const delayRun = async (delayMs: number): Promise<string> =>
    (await client.createRun({ workflowId: 'conformance-delay', inputs: { delayMs } })).runId;
  const waitingApproval = async (): Promise<string> => {
    const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
    await waitStatus(client, runId, 'waiting-approval');
    return runId;
  };
  const approve = (runId: string) => client.resolveInterrupt(runId, 'gate', { action: 'accept' });

  describe('modes', () => {
    let runId: string;
    beforeAll(async () => {
      runId = await delayRun(200);
    });

    it('updates (the default): run.started … run.completed, only the updates tier, each frame named by its type, then the server closes', async () => {
      const s = await (await events(runId)).toEnd();
      expect(s.status).toBe(200);
      expect(s.contentType).toMatch(/^text\/event-stream/);
      const types = s.frames.map((f) => f.event);
      expect(types[0]).toBe('run.started');
      expect(types.at(-1)).toBe('run.completed');
      expect(types.filter((t) => !UPDATES_TIER.has(t))).toEqual([]);
      expect(s.docs.map((d) => d.type)).toEqual(types);
      expect(s.ids).toEqual(s.docs.map((d) => d.sequence));
      expect(s.ids).toEqual([...s.ids].sort((a, b) => a - b));
      expect((await (await events(runId, '?streamMode=updates')).toEnd()).frames.map((f) => f.event)).toEqual(
        types,
      );
    });

    it('debug is the whole log in order, a superset of updates for the same run', async () => {
      const debug = await (await events(runId, '?streamMode=debug')).toEnd();
      const log = await fullLog(runId);
      expect(debug.ids).toEqual(log.map((e) => e.sequence));
      expect(debug.frames.map((f) => f.event)).toEqual(log.map((e) => e.type));
      expect(debug.frames.map((f) => f.event)).toContain('node.started');
      const updates = await (await events(runId)).toEnd();
      expect(debug.ids).toEqual(expect.arrayContaining(updates.ids));
      expect(debug.frames.length).toBeGreaterThan(updates.frames.length);
    });

    it('mixed modes send the union of their filters, each frame still named by its event type', async () => {
      const updates = await (await events(runId)).toEnd();
      const withMessages = await (await events(runId, '?streamMode=updates,messages')).toEnd();
      expect(withMessages.frames.map((f) => [f.id, f.event])).toEqual(
        updates.frames.map((f) => [f.id, f.event]),
      );
      const debug = await (await events(runId, '?streamMode=debug')).toEnd();
      const withDebug = await (await events(runId, '?streamMode=updates,debug')).toEnd();
      expect(withDebug.frames.map((f) => [f.id, f.event])).toEqual(debug.frames.map((f) => [f.id, f.event]));
    });

    it('messages on a run without an agent is empty and closes at the terminal event', async () => {
      const s = await (await events(await delayRun(100), '?streamMode=messages')).toEnd();
      expect(s.status).toBe(200);
      expect(s.frames).toEqual([]);
    });

    it.each([['does-not-exist'], ['updates,bogus'], ['values,updates'], ['debug,values'], ['']])(
      'streamMode=%j is 400 unsupported_stream_mode with details.supported, for SSE, JSON and poll alike',
      async (streamMode) => {
        const q = `?streamMode=${encodeURIComponent(streamMode)}`;
        const sse = await events(runId, q);
        const asJson = await events(runId, q, { Accept: 'application/json' });
        const poll = await fetch(`${gateway}/v1/runs/${runId}/events/poll${q}`, {
          headers: { Authorization: `Bearer ${TEST_KEYS.t1}` },
        });
        for (const [status, body] of [
          [sse.status, sse.body],
          [asJson.status, asJson.body],
          [poll.status, await poll.json()],
        ]) {
          expect(status).toBe(400);
          expect(body).toEqual({
            error: 'unsupported_stream_mode',
            message: expect.any(String),
            details: { supported: ['updates', 'values', 'messages', 'debug'] },
          });
        }
      },
    );

    it("another tenant's run is 404 not_found on /events and /events/poll", async () => {
      const sse = await SseSession.open(`${gateway}/v1/runs/${runId}/events`, {}, TEST_KEYS.t2);
      expect([sse.status, (sse.body as { error?: string }).error]).toEqual([404, 'not_found']);
      const poll = await fetch(`${gateway}/v1/runs/${runId}/events/poll`, {
        headers: { Authorization: `Bearer ${TEST_KEYS.t2}` },
      });
      expect([poll.status, ((await poll.json()) as { error?: string }).error]).toEqual([404, 'not_found']);
    });
  });

  it('values: a state.snapshot baseline, a snapshot after each transition, the terminal one last; a resume starts with a snapshot', async () => {
    const runId = await waitingApproval();
    const live = await (
      await events(runId, '?streamMode=values')
    ).until(
      (s) => s.docs.some((d) => d.payload.status === 'waiting-approval'),
      'a waiting-approval snapshot',
    );
    const baselineId = live.frames[0]!.id!;
    await approve(runId);
    await live.toEnd();
    expect(new Set(live.frames.map((f) => f.event))).toEqual(new Set(['state.snapshot']));
    expect(live.docs.every((d) => d.type === 'state.snapshot' && d.payload.runId === runId)).toBe(true);
    expect(live.docs.at(-1)!.payload.status).toBe('completed');
    expect(live.ids).toEqual([...live.ids].sort((a, b) => a - b));
    expect(live.ids.at(-1)).toBe((await fullLog(runId)).at(-1)!.sequence);

    const resumed = await (
      await events(runId, '?streamMode=values', { 'Last-Event-ID': baselineId }, otherGateway)
    ).toEnd();
    expect(resumed.frames[0]!.event).toBe('state.snapshot');
    expect(resumed.docs[0]!.payload).toMatchObject({ runId, status: 'completed' });
  });

  it('Last-Event-ID mid-run: a reconnect, to another gateway, gets exactly the events after it, none twice, to the end', async () => {
    const runId = await waitingApproval();
    const first = await (
      await events(runId, '?streamMode=debug')
    ).until((s) => s.frames.some((f) => f.event === 'node.suspended'), 'node.suspended');
    first.close();
    const lastSeen = first.ids.at(-1)!;
    await approve(runId);
    const second = await (
      await events(runId, '?streamMode=debug', { 'Last-Event-ID': String(lastSeen) }, otherGateway)
    ).toEnd();
    const log = await fullLog(runId);
    expect(second.ids).toEqual(log.map((e) => e.sequence).filter((s) => s > lastSeen));
    expect([...first.ids, ...second.ids]).toEqual(log.map((e) => e.sequence));
    expect(second.frames.at(-1)!.event).toBe('run.completed');
  });

  it('Last-Event-ID at the terminal event: 200, no frame, closed by the server; a malformed one or one past the log is 400 validation_error', async () => {
    const runId = await delayRun(0);
    const full = await (await events(runId)).toEnd();
    const terminal = full.frames.find((f) => TERMINAL.includes(f.event))!;
    for (const mode of ['updates', 'debug', 'messages']) {
      const again = await (
        await events(runId, `?streamMode=${mode}`, { 'Last-Event-ID': terminal.id! })
      ).toEnd();
      expect([again.status, again.frames]).toEqual([200, []]);
    }
    const bad = await events(runId, '', { 'Last-Event-ID': 'abc' });
    expect([bad.status, (bad.body as { error?: string }).error]).toEqual([400, 'validation_error']);
    // An id past the log names no event; on a waiting run such a stream would otherwise never close.
    const waiting = await waitingApproval();
    const last = (await fullLog(waiting)).at(-1)!.sequence;
    for (const [id, header] of [
      [runId, { 'Last-Event-ID': String(Number(terminal.id) + 1) }],
      [waiting, { 'Last-Event-ID': String(last + 1) }],
    ] as const) {
      const past = await events(id, '', header);
      expect([past.status, (past.body as { error?: string }).error]).toEqual([400, 'validation_error']);
    }
    const pastQuery = await events(waiting, `?after=${last + 1}`);
    expect(pastQuery.status).toBe(400);
    const atEnd = await events(waiting, '', { 'Last-Event-ID': String(last) });
    await approve(waiting);
    await atEnd.toEnd();
    expect(atEnd.frames.map((f) => f.event).at(-1)).toBe('run.completed');
    expect(atEnd.ids.every((i) => i > last)).toBe(true);
  });

  it('keep-alive comments flow while a run waits; the stream still closes on the terminal event', async () => {
    const runId = await waitingApproval();
    const s = await (
      await events(runId, '', {}, otherGateway)
    ).until((x) => x.keepalives >= 2, 'two :keepalive comments');
    expect(s.frames.map((f) => f.event)).toContain('node.suspended');
    await approve(runId);
    await s.toEnd();
    expect(s.frames.at(-1)!.event).toBe('run.completed');
  });

  it('bufferMs: event: batch arrays, each id the highest sequence in it, the same events as unbatched, flushed at the suspension and the terminal event', async () => {
    const runId = await waitingApproval();
    const batched = await (
      await events(runId, '?bufferMs=5000')
    ).until(
      (s) => s.frames.some((f) => (JSON.parse(f.data) as Doc[]).some((d) => d.type === 'node.suspended')),
      'a batch holding node.suspended',
    );
    await approve(runId);
    await batched.toEnd();
    expect(new Set(batched.frames.map((f) => f.event))).toEqual(new Set(['batch']));
    const batches = batched.frames.map((f) => JSON.parse(f.data) as Doc[]);
    for (const [i, batch] of batches.entries()) {
      expect(batch.length).toBeGreaterThan(0);
      expect(batched.ids[i]).toBe(Math.max(...batch.map((d) => d.sequence)));
    }
    const suspendedIn = batches.find((b) => b.some((d) => d.type === 'node.suspended'))!;
    expect(suspendedIn.at(-1)!.type).toBe('node.suspended');
    expect(batches.at(-1)!.at(-1)!.type).toBe('run.completed');
    const unbatched = await (await events(runId)).toEnd();
    expect(batches.flat().map((d) => [d.sequence, d.type])).toEqual(
      unbatched.docs.map((d) => [d.sequence, d.type]),
    );

    // Last-Event-ID is the id of a batch: the resume starts after the whole batch.
    const resumed = await (
      await events(runId, '?bufferMs=100', { 'Last-Event-ID': String(batched.ids[0]) })
    ).toEnd();
    expect(resumed.frames.flatMap((f) => (JSON.parse(f.data) as Doc[]).map((d) => d.sequence))).toEqual(
      unbatched.docs.map((d) => d.sequence).filter((s) => s > batched.ids[0]!),
    );
    const zero = await (await events(runId, '?bufferMs=0')).toEnd();
    expect(zero.frames.map((f) => f.event)).toEqual(unbatched.frames.map((f) => f.event));
    for (const bad of ['99999', '5001', '-1', 'soon']) {
      const refused = await events(runId, `?bufferMs=${bad}`);
      expect([bad, refused.status, (refused.body as { error?: string }).error]).toEqual([
        bad,
        400,
        'validation_error',
      ]);
    }
  });

  it('the poll fallback: a long poll wakes on the next event, the cursor continues, isComplete at the end; spec names and streamMode work', async () => {
    const runId = await waitingApproval();
    const head = await client.pollEvents(runId);
    expect(head.runStatus).toBe('waiting-approval');
    expect(head.isComplete).toBe(false);
    expect(head.events.map((e) => e.type)).toContain('node.suspended');
    const quiet = await fetch(
      `${otherGateway}/v1/runs/${runId}/events/poll?lastSequence=${head.nextAfter}&timeout=0`,
      {
        headers: { Authorization: `Bearer ${TEST_KEYS.t1}` },
      },
    );
    expect(await quiet.json()).toMatchObject({ events: [], nextAfter: head.nextAfter, isComplete: false });

    const waiting = client.pollEvents(runId, { after: head.nextAfter, timeoutMs: 20_000 });
    await approve(runId);
    const woke = await waiting;
    expect(woke.events.length).toBeGreaterThan(0);
    expect((woke.events[0] as unknown as Doc).sequence).toBe(head.nextAfter + 1);

    const rest = await waitFor(
      async () => {
        const page = await client.pollEvents(runId, { after: -1, streamMode: 'updates' });
        return page.isComplete ? page : undefined;
      },
      { timeoutMs: 10_000, what: 'a complete poll page' },
    );
    const types = (rest.events as unknown as Doc[]).map((e) => e.type);
    expect(types.at(-1)).toBe('run.completed');
    expect(types.filter((t) => !UPDATES_TIER.has(t))).toEqual([]);
    expect(rest.runStatus).toBe('completed');
  });

  it('low-confidence: node.suspended names the agent, threshold and observed confidence; the run waits in waiting-approval; ratified, it completes', async () => {
    const { runId } = await client.createRun({ workflowId: 'conformance-agent-low-confidence' });
    const snapshot = await waitStatus(client, runId, 'waiting-approval');
    expect(snapshot.interrupt).toMatchObject({
      kind: 'low-confidence',
      data: { threshold: 0.7, observed: 0.5 },
    });

    const res = await fetch(`${gateway}/v1/runs/${runId}/events`, {
      headers: { Accept: 'application/json', Authorization: `Bearer ${TEST_KEYS.t1}` },
    });
    const log = ((await res.json()) as { events: Doc[] }).events;
    const decided = log.findIndex((e) => e.type === 'agent.decided');
    const suspended = log.findIndex(
      (e) => e.type === 'node.suspended' && e.payload.reason === 'low-confidence',
    );
    expect(decided).toBeGreaterThanOrEqual(0);
    expect(suspended).toBeGreaterThan(decided);
    expect(log[decided]!.payload).toMatchObject({
      agentId: 'core.conformance.low-conf-decider',
      confidence: 0.5,
    });
    expect(log[suspended]!.payload).toMatchObject({
      reason: 'low-confidence',
      agentId: 'core.conformance.low-conf-decider',
      threshold: 0.7,
      observed: 0.5,
      agent: { agentId: 'core.conformance.low-conf-decider', modelClass: 'reasoning' },
    });

    // The updates stream, which has no interrupt.requested payload to join, carries the same fields.
    const s = await (
      await events(runId, '', {}, otherGateway)
    ).until((x) => x.frames.some((f) => f.event === 'node.suspended'), 'node.suspended');
    expect(s.docs.find((d) => d.type === 'node.suspended')!.payload).toMatchObject({
      reason: 'low-confidence',
      threshold: 0.7,
      observed: 0.5,
    });
    await client.resolveInterrupt(runId, 'low-conf-decider', { route: 'b' });
    await s.toEnd();
    expect(s.frames.at(-1)!.event).toBe('run.completed');
    expect((await client.getRun(runId)).status).toBe('completed');
  });
});
