import { randomUUID } from 'node:crypto';
import { OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal } from './e2e-kit';

interface Turn {
  messageId: string;
  from: string;
  role: string;
  turnIndex: number;
  content: unknown;
  speakerId?: string;
}
interface Transcript {
  conversationId: string;
  status: string;
  turns: Turn[];
  nextCursor?: number;
}
interface RunEvent {
  eventId: string;
  type: string;
  nodeId?: string;
  causationId?: string;
  payload: Record<string, unknown>;
}

const agent = (agentId: string, script: string[]) => ({ agentId, name: agentId, script });

function workflow(id: string, node: Record<string, unknown>): Record<string, unknown> {
  return {
    id,
    name: id,
    version: '1.0.0',
    nodes: [
      { id: 'talk', ...node },
      { id: 'after', typeId: 'core.noop', config: {} },
    ],
    edges: [{ id: 'e1', sourceNodeId: 'talk', targetNodeId: 'after' }],
  };
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('conversations end to end, %s mode', (mode) => {
  let hut: HostUnderTest;
  let client: OpenWopClient;

  const waitStatus = (runId: string, statuses: string[], timeoutMs = 20_000): Promise<RunSnapshotBody> =>
    waitFor(
      async () => {
        const s = await client.getRun(runId);
        return statuses.includes(s.status) ? s : undefined;
      },
      { timeoutMs, what: `run ${runId} ${statuses.join('|')}` },
    );
  const transcript = (runId: string, conversationId = `${runId}:talk:0`, query = '') =>
    client.call<Transcript>(
      'GET',
      `/v1/runs/${runId}/conversations/${encodeURIComponent(conversationId)}${query}`,
    );
  const waitTurns = (runId: string, count: number, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const t = await transcript(runId).catch(() => undefined);
        return t && t.turns.length >= count ? t : undefined;
      },
      { timeoutMs, what: `run ${runId} transcript of ${count} turns` },
    );
  const send = (runId: string, body: Record<string, unknown>) =>
    client.call<{ status: string; turnIndex?: number; conversationId?: string }>(
      'POST',
      `/v1/runs/${runId}:resolveInterrupt`,
      {
        nodeId: 'talk',
        ...body,
      },
    );
  const userTurn = (content: unknown, messageId: string = randomUUID()) => ({
    operation: 'exchange',
    turn: { messageId, from: 'user', role: 'user', content },
  });
  const start = async (definition: Record<string, unknown>): Promise<string> => {
    await client.call('POST', '/v1/workflows', definition);
    return (await client.createRun({ workflowId: String(definition.id) })).runId;
  };
  const events = async (runId: string): Promise<RunEvent[]> =>
    (await client.listEvents(runId)) as unknown as RunEvent[];

  beforeAll(async () => {
    hut = await MODES[mode]();
    client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('one suspension, many turns: start → 3 exchanges → close gives turnIndex 0..4; retries dedupe; schema and closed-conversation refusals write nothing', async () => {
    const runId = await start(
      workflow(`conv-${mode}-gate`, {
        typeId: 'core.conversationGate',
        config: { prompt: 'Plan the offsite', turnSchema: { type: 'string', maxLength: 200 } },
      }),
    );
    const waiting = await waitStatus(runId, ['waiting-approval']);
    expect(waiting.interrupt).toMatchObject({ nodeId: 'talk', kind: 'conversation.exchange' });
    await waitTurns(runId, 1);

    const first = randomUUID();
    expect(await send(runId, userTurn('Where?', first))).toMatchObject({ status: 'accepted', turnIndex: 1 });
    expect(await send(runId, userTurn('Where?', first))).toMatchObject({ status: 'accepted', turnIndex: 1 });
    const bad = await refusal(send(runId, userTurn(42)));
    expect([bad.status, bad.code]).toEqual([400, 'validation_error']);
    expect(await send(runId, userTurn('When?'))).toMatchObject({ turnIndex: 2 });
    // The run-scoped node path takes the same ConversationResolve as resumeValue.
    expect(
      await client.call('POST', `/v1/runs/${runId}/interrupts/talk`, { resumeValue: userTurn('Who?') }),
    ).toMatchObject({ status: 'accepted', turnIndex: 3 });
    expect((await client.getRun(runId)).status).toBe('waiting-approval');

    expect(await send(runId, { operation: 'close', outcome: { decided: 'Lisbon' } })).toMatchObject({
      status: 'resolved',
    });
    const done = await waitStatus(runId, ['completed']);
    expect(done.status).toBe('completed');
    const t = await waitTurns(runId, 5);
    expect(t.turns.map((x) => x.turnIndex)).toEqual([0, 1, 2, 3, 4]);
    expect(t.turns.map((x) => x.role)).toEqual(['system', 'user', 'user', 'user', 'system']);
    expect(t.status).toBe('closed');

    const afterClose = await refusal(send(runId, userTurn('late')));
    expect([afterClose.status, afterClose.code]).toEqual([400, 'validation_error']);
    const closeAgain = await refusal(send(runId, { operation: 'close' }));
    expect(closeAgain.status).toBe(409);
    expect((await transcript(runId)).turns).toHaveLength(5);

    const log = await events(runId);
    const conv = log.filter((e) => e.type.startsWith('conversation.'));
    expect(conv.map((e) => e.type)).toEqual([
      'conversation.opened',
      'conversation.exchanged',
      'conversation.exchanged',
      'conversation.exchanged',
      'conversation.closed',
    ]);
    const suspended = log.find((e) => e.type === 'node.suspended')!;
    expect(suspended.payload).toMatchObject({ reason: 'conversation-input' });
    expect(conv[0]!.causationId).toBe(suspended.eventId);
    for (let i = 1; i < conv.length; i++) expect(conv[i]!.causationId).toBe(conv[i - 1]!.eventId);
    expect(log.find((e) => e.type === 'node.completed' && e.nodeId === 'talk')?.payload).toMatchObject({
      outputs: { outcome: { decided: 'Lisbon' } },
    });
    const listed = await client.call<{
      conversations: { conversationId: string; status: string; turnCount: number }[];
    }>('GET', `/v1/runs/${runId}/conversations`);
    expect(listed.conversations).toEqual([
      expect.objectContaining({ conversationId: `${runId}:talk:0`, status: 'closed', turnCount: 5 }),
    ]);
  });

  it('timeout: the whole conversation closes with outcome null and a system final turn, then the node times out', async () => {
    const runId = await start(
      workflow(`conv-${mode}-timeout`, {
        typeId: 'core.conversationGate',
        config: { prompt: 'quick', timeoutMs: 1500 },
      }),
    );
    const ended = await waitStatus(runId, ['failed', 'completed'], 30_000);
    expect(ended.status).toBe('failed');
    const log = await events(runId);
    const closed = log.find((e) => e.type === 'conversation.closed')!;
    expect(closed.payload).toMatchObject({
      outcome: null,
      turnIndex: 1,
      finalTurn: { role: 'system', content: { reason: 'timeout' } },
    });
    // The close reaches the log before the node's timeout handling.
    const types = log.map((e) => e.type);
    expect(types.indexOf('conversation.closed')).toBeLessThan(types.indexOf('interrupt.resolved'));
    expect(log.find((e) => e.type === 'node.failed')?.payload).toMatchObject({
      error: { code: 'interrupt_timeout' },
    });
  });

  it('maxSilence: a quiet conversation records one audit event per silence and goes on', async () => {
    const runId = await start(
      workflow(`conv-${mode}-silence`, {
        typeId: 'core.conversationGate',
        config: { prompt: 'anyone?', maxSilenceMs: 600 },
      }),
    );
    await waitStatus(runId, ['waiting-approval']);
    const audits = async () =>
      (await events(runId)).filter(
        (e) =>
          e.type === 'log.appended' &&
          (e.payload.fields as { event?: string } | undefined)?.event === 'conversation.silence',
      );
    const first = await waitFor(async () => ((await audits()).length >= 1 ? audits() : undefined), {
      timeoutMs: 20_000,
      what: 'a silence audit',
    });
    expect(first[0]!.payload).toMatchObject({
      level: 'warn',
      fields: { conversationId: `${runId}:talk:0`, silentSinceTurnIndex: 0, maxSilenceMs: 600 },
    });
    // A turn re-arms it: the next silence is audited once more, after that turn.
    await send(runId, userTurn('me'));
    const second = await waitFor(async () => ((await audits()).length >= 2 ? audits() : undefined), {
      timeoutMs: 20_000,
      what: 'a second silence audit',
    });
    expect(second[1]!.payload).toMatchObject({ fields: { silentSinceTurnIndex: 1 } });
    expect((await client.getRun(runId)).status).toBe('waiting-approval');
    await send(runId, { operation: 'close' });
    await waitStatus(runId, ['completed']);
    expect((await audits()).length).toBe(2);
  });

  it('an agent converses with a person: it speaks first, answers each turn as streamed chunks, and the close resumes the node with its last reply', async () => {
    const runId = await start(
      workflow(`conv-${mode}-agent`, {
        typeId: 'agent.conversation',
        config: {
          provider: 'scripted',
          system_prompt: 'You plan trips.',
          script: ['Hello! Where to?', 'Lisbon is lovely.', 'Booked.'],
        },
      }),
    );
    await waitStatus(runId, ['waiting-approval']);
    expect((await waitTurns(runId, 2)).turns[1]).toMatchObject({
      role: 'agent',
      speakerId: 'agent',
      content: 'Hello! Where to?',
    });
    await send(runId, userTurn('Lisbon'));
    expect((await waitTurns(runId, 4)).turns[3]).toMatchObject({
      role: 'agent',
      content: 'Lisbon is lovely.',
    });
    await send(runId, userTurn('Book it'));
    expect((await waitTurns(runId, 6)).turns[5]).toMatchObject({ role: 'agent', content: 'Booked.' });
    await send(runId, { operation: 'close' });
    await waitStatus(runId, ['completed']);
    const log = await events(runId);
    expect(log.find((e) => e.type === 'node.completed' && e.nodeId === 'talk')?.payload).toMatchObject({
      outputs: { reply: 'Booked.', turnCount: 7 },
    });
    const chunks = log.filter((e) => e.type === 'output.chunk');
    const byMessage = new Map<string, string>();
    for (const c of chunks) {
      const id = String((c.payload.meta as { messageId: string }).messageId);
      byMessage.set(id, (byMessage.get(id) ?? '') + String(c.payload.chunk));
    }
    expect([...byMessage.values()]).toEqual(['Hello! Where to?', 'Lisbon is lovely.', 'Booked.']);
  });

  it('registration checks an agent.conversation config with the schema the command line uses: an older-format field is refused by name with its fix, and nothing is stored', async () => {
    const id = `conv-${mode}-older-format`;
    const refused = await refusal(
      client.call(
        'POST',
        '/v1/workflows',
        workflow(id, {
          typeId: 'agent.conversation',
          config: { provider: 'scripted', script: ['Hi.'], max_turns: 5 },
        }),
      ),
    );
    expect([refused.status, refused.code]).toEqual([400, 'validation_error']);
    expect(refused.details).toMatchObject({
      errors: [
        { path: '/nodes/0/config/max_turns', message: expect.stringContaining('fix: use timeout_ms') },
      ],
    });
    expect((await refusal(client.call('GET', `/v1/workflows/${id}`))).status).toBe(404);
  });

  it('replay never re-prompts: a fork in replay mode, from the start or from inside the talk, completes from the recorded turns and closure', async () => {
    const runId = await start(
      workflow(`conv-${mode}-replay`, {
        typeId: 'agent.conversation',
        config: { provider: 'scripted', script: ['Hi.', 'Sure.'] },
      }),
    );
    await waitTurns(runId, 2);
    await send(runId, userTurn('Help me'));
    await waitTurns(runId, 4);
    await send(runId, { operation: 'close' });
    await waitStatus(runId, ['completed']);
    const source = await events(runId);
    const inside = source.filter((e) => e.type === 'conversation.exchanged')[1]!;
    const outputOf = (log: RunEvent[]) =>
      log.find((e) => e.type === 'node.completed' && e.nodeId === 'talk')?.payload;
    for (const fromSeq of [0, source.indexOf(inside) + 1]) {
      const fork = await client.call<{ runId: string }>('POST', `/v1/runs/${runId}:fork`, {
        mode: 'replay',
        fromSeq,
      });
      await waitStatus(fork.runId, ['completed']);
      const replayed = await events(fork.runId);
      const types = replayed.map((e) => e.type);
      expect(replayed.find((e) => e.type === 'replay.diverged')?.payload).toBeUndefined();
      // The same output, its conversation (and turn) ids naming the fork.
      expect(outputOf(replayed)).toEqual(
        JSON.parse(JSON.stringify(outputOf(source)).replaceAll(runId, fork.runId)),
      );
      // Nobody was asked again: no pending interrupt, no agent reply streamed after the copied history.
      expect(
        (await client.call<{ interrupts: unknown[] }>('GET', `/v1/interrupts?runId=${fork.runId}`))
          .interrupts,
      ).toEqual([]);
      expect(types.slice(fromSeq).filter((t) => t === 'output.chunk')).toEqual([]);
      // RFC 0005 §G: the recorded turns are re-folded verbatim (ADR 0023), each once, naming the fork.
      const talk = (log: RunEvent[]) =>
        log.filter((e) => e.type.startsWith('conversation.')).map((e) => e.payload);
      expect(talk(replayed)).toEqual(JSON.parse(JSON.stringify(talk(source)).replaceAll(runId, fork.runId)));
    }
  });

  it.each([
    ['agent-closed', { a: ['Hi B.', '/close'], b: ['Hi A.', 'More?'] }, {}],
    ['sentinel', { a: ['I offer 10.'], b: ['DEAL at 10.'] }, { sentinel: 'DEAL' }],
    ['empty-reply', { a: ['Hello?'], b: [] }, {}],
    [
      'ttl',
      {
        a: Array.from({ length: 400 }, (_, i) => `ping ${i}`),
        b: Array.from({ length: 400 }, (_, i) => `pong ${i}`),
      },
      { ttl_ms: 1000 },
    ],
  ] as const)('two agents talk freely until a stop: %s', async (reason, scripts, extra) => {
    const runId = await start(
      workflow(`conv-${mode}-dialogue-${reason}`, {
        typeId: 'agent.dialogue',
        config: {
          prompt: 'Agree on a price.',
          participants: [agent('a', [...scripts.a]), agent('b', [...scripts.b])],
          ...extra,
        },
      }),
    );
    await waitStatus(runId, ['completed'], 60_000);
    const t = await transcript(runId, `${runId}:talk:0`, '?limit=1000');
    const spoken = t.turns.filter((x) => x.role === 'agent');
    // A TTL may pass after the first reply on a slow box; every other stop needs both voices.
    expect(spoken.length).toBeGreaterThanOrEqual(reason === 'ttl' ? 1 : 2);
    // No turn order is imposed beyond "someone else speaks next": two agents alternate.
    spoken.forEach((x, i) => expect(x.speakerId).toBe(i % 2 === 0 ? 'a' : 'b'));
    const output = (await events(runId)).find(
      (e) => e.type === 'node.completed' && e.nodeId === 'talk',
    )!.payload;
    expect(output).toMatchObject({ outputs: { reason } });
  });

  it('a council of three answers one prompt in one transcript, every turn attributed', async () => {
    const runId = await start(
      workflow(`conv-${mode}-council`, {
        typeId: 'agent.council',
        config: {
          prompt: 'Should we ship on Friday?',
          participants: [
            agent('cautious', ['Wait until Monday.']),
            agent('bold', ['Ship it.']),
            agent('pragmatic', ['Ship behind a flag.']),
          ],
        },
      }),
    );
    await waitStatus(runId, ['completed'], 30_000);
    const t = await transcript(runId);
    expect(t.turns.map((x) => [x.turnIndex, x.role, x.speakerId ?? null])).toEqual([
      [0, 'user', null],
      [1, 'agent', 'cautious'],
      [2, 'agent', 'bold'],
      [3, 'agent', 'pragmatic'],
      [4, 'system', null],
    ]);
    const output = (await events(runId)).find(
      (e) => e.type === 'node.completed' && e.nodeId === 'talk',
    )!.payload;
    expect(output).toMatchObject({
      outputs: {
        reason: 'council-complete',
        outcome: {
          answers: { cautious: 'Wait until Monday.', bold: 'Ship it.', pragmatic: 'Ship behind a flag.' },
        },
      },
    });
  });

  it('rosters: an oversize roster is refused at registration; a non-member or anonymous agent turn is refused and writes nothing', async () => {
    const oversize = await refusal(
      client.call(
        'POST',
        '/v1/workflows',
        workflow(`conv-${mode}-oversize`, {
          typeId: 'agent.council',
          config: { participants: Array.from({ length: 9 }, (_, i) => agent(`m${i}`, ['x'])) },
        }),
      ),
    );
    expect([oversize.status, oversize.code]).toEqual([400, 'validation_error']);
    expect(oversize.details).toMatchObject({ reason: 'conversation_roster_exceeded', maxParticipants: 8 });
    // The conformance fixture with 64 members is seeded, and refused at run creation; no conversation opens.
    const fixture = await refusal(
      client.createRun({ workflowId: 'conformance-multi-party-council-oversize' }),
    );
    expect([fixture.status, fixture.code]).toEqual([400, 'validation_error']);
    expect(fixture.details).toMatchObject({
      reason: 'conversation_roster_exceeded',
      participants: 64,
      maxParticipants: 8,
    });

    const runId = await start(
      workflow(`conv-${mode}-roster`, {
        typeId: 'core.conversationGate',
        config: { prompt: 'Council', participants: [{ agentId: 'host:a' }, { agentId: 'host:b' }] },
      }),
    );
    await waitStatus(runId, ['waiting-approval']);
    await waitTurns(runId, 1);
    const opened = (await events(runId)).find((e) => e.type === 'conversation.opened')!;
    expect(opened.payload).toMatchObject({ participants: [{ agentId: 'host:a' }, { agentId: 'host:b' }] });
    const agentTurn = (speakerId?: string) => ({
      operation: 'exchange',
      turn: {
        messageId: randomUUID(),
        from: speakerId ?? 'someone',
        role: 'agent',
        content: 'hi',
        ...(speakerId ? { speakerId } : {}),
      },
    });
    const stranger = await refusal(send(runId, agentTurn('host:z')));
    expect([stranger.status, stranger.code]).toEqual([400, 'validation_error']);
    const anonymous = await refusal(send(runId, agentTurn()));
    expect([anonymous.status, anonymous.code]).toEqual([400, 'validation_error']);
    expect(await send(runId, agentTurn('host:b'))).toMatchObject({ status: 'accepted', turnIndex: 1 });
    expect((await waitTurns(runId, 2)).turns[1]).toMatchObject({ speakerId: 'host:b' });
  });
});

describe('a host started with conversations off refuses them (capability_required)', () => {
  let hut: HostUnderTest;
  let client: OpenWopClient;
  beforeAll(async () => {
    hut = await MODES.embedded({ OPENWOP_CONVERSATIONS: 'off' });
    client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('advertises no conversationPrimitive, refuses such workflows at registration and at run creation, and runs the others', async () => {
    const discovery = await client.discovery();
    expect(discovery).toMatchObject({
      conversationPrimitive: false,
      multiPartyConversation: { supported: false },
    });
    const registered = await refusal(
      client.call(
        'POST',
        '/v1/workflows',
        workflow('off-agent', { typeId: 'agent.conversation', config: { script: ['hi'] } }),
      ),
    );
    expect([registered.status, registered.code]).toEqual([422, 'capability_required']);
    expect(registered.details).toMatchObject({
      requiredCapability: 'conversationPrimitive',
      offendingTypeId: 'agent.conversation',
      nodeId: 'talk',
    });
    const started = await refusal(client.createRun({ workflowId: 'conformance-multi-party-council' }));
    expect([started.status, started.code]).toEqual([422, 'capability_required']);
    expect(started.details).toMatchObject({
      requiredCapability: 'conversationPrimitive',
      offendingTypeId: 'core.conversationGate',
    });
    const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
    expect(runId).toEqual(expect.any(String));
  });
});
