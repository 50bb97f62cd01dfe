import { type OpenWopApiError, OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal, workflowDefinition, type WorkflowNodeSpec } from './e2e-kit';

// Every interrupt kind (`interrupt.md`) through the REST API, in both modes: the waiting status and
// `currentNodeId` while suspended, the events the run log records for the request and the
// resolution, the terminal outcome, and that every refused answer leaves the run exactly as it was.
// The cases use separate runs, so they run concurrently within a mode.

type RunEvent = Awaited<ReturnType<OpenWopClient['listEvents']>>[number];
type Payload = Record<string, unknown>;
type Terminal = 'run.completed' | 'run.failed';

const WAIT_MS = 20_000;
const T1 = 'key-t1';
const T1B = 'key-t1b';

/** `gate` (the node under test) then `after` (a noop that runs only when the gate succeeds). */
const gateThenNoop = (id: string, gate: Omit<WorkflowNodeSpec, 'id'>) =>
  workflowDefinition(
    id,
    [
      { id: 'gate', ...gate },
      { id: 'after', typeId: 'core.noop' },
    ],
    [['gate', 'after']],
  );

const ofType = (events: readonly RunEvent[], type: string) => events.filter((e) => e.type === type);
const payloadsOf = (events: readonly RunEvent[], type: string) =>
  ofType(events, type).map((e) => e.payload as Payload);

/** The payload of the one event of `type`; fails when there is none or more than one. */
function one(events: readonly RunEvent[], type: string): Payload {
  const found = payloadsOf(events, type);
  expect({ type, count: found.length }).toEqual({ type, count: 1 });
  return found[0]!;
}

/** Asserts that the first event of each type appears in this order. */
function expectOrder(events: readonly RunEvent[], ...types: string[]): void {
  const at = types.map((t) => events.findIndex((e) => e.type === t));
  expect(Object.fromEntries(types.map((t, i) => [t, at[i]! >= 0]))).toEqual(
    Object.fromEntries(types.map((t) => [t, true])),
  );
  expect(at).toEqual([...at].sort((a, b) => a - b));
}

/**
 * The lifecycle of a run that suspended once on `nodeId` and was resolved: one request, one
 * suspension, one resolution, the node resumed, the terminal event last; sequences gapless.
 */
function expectOneInterruptLifecycle(
  events: readonly RunEvent[],
  expected: { nodeId: string; kind: string; reason?: string; terminal: Terminal },
): { requested: Payload; resolved: Payload } {
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
  const requested = one(events, 'interrupt.requested');
  expect(requested).toMatchObject({ nodeId: expected.nodeId, kind: expected.kind });
  const suspended = one(events, 'node.suspended');
  expect(suspended).toMatchObject({
    nodeId: expected.nodeId,
    kind: expected.kind,
    reason: expected.reason ?? expected.kind,
    interruptId: requested.interruptId,
    key: requested.key,
  });
  const resolved = one(events, 'interrupt.resolved');
  expect(resolved).toMatchObject({
    nodeId: expected.nodeId,
    kind: expected.kind,
    interruptId: requested.interruptId,
    key: requested.key,
  });
  expect(one(events, 'node.resumed')).toMatchObject({
    nodeId: expected.nodeId,
    interruptId: requested.interruptId,
  });
  one(events, expected.terminal);
  expect(events[events.length - 1]!.type).toBe(expected.terminal);
  expectOrder(
    events,
    'interrupt.requested',
    'node.suspended',
    'interrupt.resolved',
    'node.resumed',
    expected.terminal,
  );
  return { requested, resolved };
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('interrupt kinds end to end, %s mode', (mode) => {
  let hut: HostUnderTest;
  /** Principal `key-t1`. */
  let t1: OpenWopClient;
  /** Principal `key-t1b`, same tenant (on the last gateway: the second one in distributed mode). */
  let t1b: OpenWopClient;

  const wf = (name: string) => `kinds-${mode}-${name}`;
  const WORKFLOWS = [
    gateThenNoop(wf('refine'), {
      typeId: 'core.approvalGate',
      config: {
        title: 'Review the draft',
        actions: ['accept', 'reject', 'refine'],
        artifactData: { title: 'draft' },
      },
    }),
    gateThenNoop(wf('edit'), {
      typeId: 'core.approvalGate',
      config: {
        title: 'Edit the draft',
        actions: ['accept', 'reject', 'edit'],
        artifactData: { title: 'draft' },
      },
    }),
    gateThenNoop(wf('ask'), {
      typeId: 'core.approvalGate',
      config: { title: 'Approve the budget', actions: ['accept', 'reject', 'ask'] },
    }),
    gateThenNoop(wf('quorum'), {
      typeId: 'core.approvalGate',
      config: { title: 'Two approvers', actions: ['accept', 'reject'], requiredApprovals: 2 },
    }),
    gateThenNoop(wf('veto'), {
      typeId: 'core.approvalGate',
      config: {
        title: 'Two approvers, one veto',
        actions: ['accept', 'reject'],
        requiredApprovals: 2,
        rejectionPolicy: 'single-veto',
      },
    }),
    gateThenNoop(wf('majority'), {
      typeId: 'core.approvalGate',
      config: {
        title: 'Two approvers, majority',
        actions: ['accept', 'reject'],
        requiredApprovals: 2,
        rejectionPolicy: 'majority',
      },
    }),
    gateThenNoop(wf('external'), {
      typeId: 'core.externalEvent',
      config: { eventType: 'payment.settled', correlation: { orderId: 'o-1', region: 'eu' } },
    }),
    gateThenNoop(wf('custom'), {
      typeId: 'core.custom',
      config: { customKind: 'vendor.signature', payload: { document: 'contract-7' } },
    }),
    gateThenNoop(wf('schema'), {
      typeId: 'core.custom',
      config: {
        customKind: 'vendor.form',
        payload: { form: 'shipping' },
        resumeSchema: {
          type: 'object',
          required: ['approved', 'quantity'],
          properties: {
            approved: { type: 'boolean' },
            quantity: { type: 'integer', minimum: 1 },
            note: { type: 'string' },
          },
          additionalProperties: false,
        },
      },
    }),
    gateThenNoop(wf('conversation'), {
      typeId: 'core.conversationGate',
      config: {
        prompt: 'Which plan do you want?',
        outcomeSchema: {
          type: 'object',
          required: ['choice'],
          properties: { choice: { enum: ['basic', 'pro'] } },
        },
      },
    }),
  ];

  beforeAll(async () => {
    hut = await MODES[mode]();
    const gateways = hut.host.gateways;
    t1 = new OpenWopClient({ baseUrl: gateways[0]!, apiKey: TEST_KEYS.t1 });
    t1b = new OpenWopClient({ baseUrl: gateways[gateways.length - 1]!, apiKey: TEST_KEYS.t1b });
    await Promise.all(WORKFLOWS.map((w) => t1.call('POST', '/v1/workflows', w)));
  });
  afterAll(async () => {
    await hut?.stop();
  });

  /** Starts a run (the raw `POST /v1/runs` body, so `configurable` reaches the gateway as sent). */
  async function start(workflowId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const { runId } = await t1.call<{ runId: string }>('POST', '/v1/runs', { workflowId, ...extra });
    return runId;
  }

  async function waitStatus(runId: string, status: string): Promise<RunSnapshotBody> {
    return waitFor(
      async () => {
        const s = await t1.getRun(runId);
        return s.status === status ? s : undefined;
      },
      { timeoutMs: WAIT_MS, what: `run ${runId} ${status}` },
    );
  }

  /** Waits for the run to suspend on `nodeId` with a `kind` interrupt, shown as `status`. */
  async function waiting(
    runId: string,
    status: string,
    nodeId: string,
    kind: string,
  ): Promise<RunSnapshotBody> {
    const s = await waitStatus(runId, status);
    expect(s).toMatchObject({ currentNodeId: nodeId, interrupt: { nodeId, kind } });
    return s;
  }

  const resolve = (runId: string, nodeId: string, body: unknown, as: OpenWopClient = t1) =>
    as.call<{ status: string; interruptId: string }>('POST', `/v1/runs/${runId}/interrupts/${nodeId}`, body);

  /**
   * Sends an answer that must be refused with `status`/`code`, and checks that it changed nothing:
   * the run waits on the same interrupt, the log has no new event, the interrupt is still listed.
   */
  async function refused(
    runId: string,
    send: () => Promise<unknown>,
    status: number,
    code: string,
  ): Promise<OpenWopApiError> {
    const [before, eventsBefore] = await Promise.all([t1.getRun(runId), t1.listEvents(runId)]);
    const e = await refusal(send());
    expect({ status: e.status, code: e.code, message: e.message }).toEqual({
      status,
      code,
      message: expect.any(String),
    });
    const [after, eventsAfter, listed] = await Promise.all([
      t1.getRun(runId),
      t1.listEvents(runId),
      t1.call<{ interrupts: { runId: string; interruptId: string }[] }>(
        'GET',
        `/v1/interrupts?runId=${runId}`,
      ),
    ]);
    const interruptId = (before.interrupt as { interruptId?: string } | undefined)?.interruptId;
    expect(interruptId).toEqual(expect.any(String));
    expect({
      status: after.status,
      interruptId: (after.interrupt as { interruptId?: string } | undefined)?.interruptId,
    }).toEqual({
      status: before.status,
      interruptId,
    });
    expect(after.lastSequence).toBe(before.lastSequence);
    expect(eventsAfter).toEqual(eventsBefore);
    expect(listed.interrupts).toEqual([expect.objectContaining({ runId, interruptId })]);
    return e;
  }

  // ---------------------------------------------------------------- approval

  it.concurrent(
    'approval accept: waiting-approval on gate, unoffered or malformed answers refused, accept completes',
    async () => {
      const runId = await start('conformance-approval');
      const snap = await waiting(runId, 'waiting-approval', 'gate', 'approval');
      expect(snap.interrupt).toMatchObject({
        data: { title: 'Conformance approval', actions: ['accept', 'reject'] },
      });
      await refused(runId, () => resolve(runId, 'gate', { action: 'approve' }), 400, 'validation_error');
      await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'edit-accept', editedArtifactData: {} }),
        400,
        'validation_error',
      );
      const actingAs = await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'accept', decidedBy: T1B }),
        400,
        'validation_error',
      );
      expect(actingAs.details).toMatchObject({ errors: [expect.objectContaining({ path: '/decidedBy' })] });
      await refused(runId, () => resolve(runId, 'other', { action: 'accept' }), 404, 'interrupt_not_found');

      expect(await resolve(runId, 'gate', { action: 'accept', feedback: 'lgtm' })).toMatchObject({
        status: 'resolved',
      });
      const done = await waitStatus(runId, 'completed');
      expect(done).not.toHaveProperty('interrupt');
      const again = await refusal(resolve(runId, 'gate', { action: 'accept' }));
      expect([again.status, again.code]).toEqual([409, 'interrupt_already_resolved']);

      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({
        outcome: 'resolved',
        action: 'accept',
        decision: 'approved',
        resolvedBy: T1,
        resumeValue: { action: 'accept', feedback: 'lgtm', decidedBy: T1 },
      });
      expect(one(events, 'approval.requested')).toMatchObject({
        nodeId: 'gate',
        actions: ['accept', 'reject'],
      });
      expect(one(events, 'approval.received')).toMatchObject({
        nodeId: 'gate',
        action: 'accept',
        decidedBy: T1,
        feedback: 'lgtm',
      });
      expectOrder(events, 'approval.requested', 'node.suspended', 'approval.received', 'node.resumed');
      expect(one(events, 'node.completed')).toMatchObject({
        nodeId: 'gate',
        outputs: { action: 'accept', approved: true, decidedBy: T1 },
      });
    },
  );

  it.concurrent(
    'approval reject, routed (conformance-approval-reject-routed): the any_failed route runs, the run completes',
    async () => {
      const runId = await start('conformance-approval-reject-routed');
      await waiting(runId, 'waiting-approval', 'gate', 'approval');
      expect(await resolve(runId, 'gate', { action: 'reject', feedback: 'no' })).toMatchObject({
        status: 'resolved',
      });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({ action: 'reject', decision: 'rejected', resolvedBy: T1 });
      expect(one(events, 'approval.received')).toMatchObject({
        action: 'reject',
        decidedBy: T1,
        feedback: 'no',
      });
      expect(one(events, 'node.failed')).toMatchObject({
        nodeId: 'gate',
        error: { code: 'approval_rejected' },
      });
      expect(ofType(events, 'node.completed').map((e) => e.nodeId)).toEqual(['on-reject']);
      expect(one(events, 'node.skipped')).toMatchObject({ nodeId: 'on-accept' });
      expectOrder(events, 'node.resumed', 'node.failed', 'run.completed');
    },
  );

  it.concurrent(
    'approval reject, loopback (conformance-approval-reject-loopback): asked again under a new key, accept completes',
    async () => {
      const runId = await start('conformance-approval-reject-loopback', {
        configurable: { run: { recursionLimit: 20 } },
      });
      const first = await waiting(runId, 'waiting-approval', 'gate', 'approval');
      const firstInterrupt = first.interrupt as { interruptId: string; key: string };
      expect(await resolve(runId, 'gate', { action: 'reject' })).toMatchObject({
        status: 'resolved',
        interruptId: firstInterrupt.interruptId,
      });
      const second = await waitFor(
        async () => {
          const s = await t1.getRun(runId);
          const i = s.interrupt as { interruptId?: string } | undefined;
          return s.status === 'waiting-approval' &&
            i?.interruptId &&
            i.interruptId !== firstInterrupt.interruptId
            ? s
            : undefined;
        },
        { timeoutMs: WAIT_MS, what: 'the gate asked again' },
      );
      const secondInterrupt = second.interrupt as { interruptId: string; key: string; nodeId: string };
      expect(second.currentNodeId).toBe('gate');
      expect(secondInterrupt.nodeId).toBe('gate');
      expect(secondInterrupt.key).not.toBe(firstInterrupt.key);

      expect(await resolve(runId, 'gate', { action: 'accept' })).toMatchObject({
        status: 'resolved',
        interruptId: secondInterrupt.interruptId,
      });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const requested = payloadsOf(events, 'interrupt.requested');
      expect(requested.map((p) => [p.interruptId, p.key])).toEqual([
        [firstInterrupt.interruptId, firstInterrupt.key],
        [secondInterrupt.interruptId, secondInterrupt.key],
      ]);
      expect(
        payloadsOf(events, 'interrupt.resolved').map((p) => [p.interruptId, p.action, p.resolvedBy]),
      ).toEqual([
        [firstInterrupt.interruptId, 'reject', T1],
        [secondInterrupt.interruptId, 'accept', T1],
      ]);
      expect(payloadsOf(events, 'approval.received').map((p) => [p.action, p.decidedBy])).toEqual([
        ['reject', T1],
        ['accept', T1],
      ]);
      expect(payloadsOf(events, 'node.resumed')).toHaveLength(2);
      expect(ofType(events, 'node.completed').map((e) => e.nodeId)).toEqual(['start', 'revise', 'gate']);
      expect(events[events.length - 1]!.type).toBe('run.completed');
    },
  );

  it.concurrent(
    'approval refine: structured refineFeedback is validated, then carried by the resolved event',
    async () => {
      const runId = await start(wf('refine'));
      await waiting(runId, 'waiting-approval', 'gate', 'approval');
      const none = await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'refine' }),
        400,
        'validation_error',
      );
      expect(none.details).toMatchObject({ errors: [expect.objectContaining({ path: '/refineFeedback' })] });
      const badScope = await refused(
        runId,
        () =>
          resolve(runId, 'gate', { action: 'refine', refineFeedback: { scope: 'everything', text: 'x' } }),
        400,
        'validation_error',
      );
      expect(badScope.details).toMatchObject({
        errors: [expect.objectContaining({ path: '/refineFeedback/scope' })],
      });
      await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'refine', refineFeedback: { scope: 'section', text: 'x' } }),
        400,
        'validation_error',
      );

      const refineFeedback = {
        scope: 'section',
        sectionPath: '/title',
        tags: ['tone'],
        text: 'make it shorter',
      };
      expect(
        await resolve(runId, 'gate', { resumeValue: { action: 'refine', refineFeedback } }),
      ).toMatchObject({ status: 'resolved' });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({
        action: 'refine',
        decision: 'changes-requested',
        resolvedBy: T1,
        resumeValue: { action: 'refine', refineFeedback, decidedBy: T1 },
      });
      expect(one(events, 'approval.received')).toMatchObject({
        action: 'refine',
        refineFeedback,
        decidedBy: T1,
      });
      expect(payloadsOf(events, 'node.completed').find((p) => p.nodeId === 'gate')).toMatchObject({
        outputs: { action: 'refine', approved: false, refineFeedback },
      });
    },
  );

  it.concurrent(
    "approval edit-accept: a gate offering 'edit' takes editedArtifactData; without it the answer is refused",
    async () => {
      const runId = await start(wf('edit'));
      const snap = await waiting(runId, 'waiting-approval', 'gate', 'approval');
      expect(snap.interrupt).toMatchObject({
        data: { actions: ['accept', 'reject', 'edit'], artifactData: { title: 'draft' } },
      });
      const missing = await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'edit-accept' }),
        400,
        'validation_error',
      );
      expect(missing.details).toMatchObject({
        errors: [expect.objectContaining({ path: '/editedArtifactData' })],
      });
      await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'refine', refineFeedback: { scope: 'whole', text: 'x' } }),
        400,
        'validation_error',
      );

      const editedArtifactData = { title: 'final', tags: ['v2'] };
      expect(await resolve(runId, 'gate', { action: 'edit-accept', editedArtifactData })).toMatchObject({
        status: 'resolved',
      });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({
        action: 'edit-accept',
        decision: 'approved',
        resumeValue: { action: 'edit-accept', editedArtifactData, decidedBy: T1 },
      });
      expect(one(events, 'approval.received')).toMatchObject({
        action: 'edit-accept',
        editedArtifactData,
        decidedBy: T1,
      });
      expect(payloadsOf(events, 'node.completed').find((p) => p.nodeId === 'gate')).toMatchObject({
        outputs: { action: 'edit-accept', approved: true, artifactData: editedArtifactData },
      });
    },
  );

  it.concurrent(
    'approval ask: the question is recorded (pending, run still waiting, no event) until accept closes the gate; then the Q&A is in the log',
    async () => {
      const runId = await start(wf('ask'));
      await waiting(runId, 'waiting-approval', 'gate', 'approval');
      await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'ask', question: '  ' }),
        400,
        'validation_error',
      );
      const before = await t1.listEvents(runId);

      expect(
        await resolve(runId, 'gate', { action: 'ask', question: 'Which quarter is this budget for?' }),
      ).toMatchObject({ status: 'pending' });
      expect(await resolve(runId, 'gate', { action: 'ask', question: 'Who owns it?' }, t1b)).toMatchObject({
        status: 'pending',
      });
      const still = await t1.getRun(runId);
      expect(still).toMatchObject({
        status: 'waiting-approval',
        currentNodeId: 'gate',
        interrupt: { nodeId: 'gate' },
      });
      expect(await t1.listEvents(runId)).toEqual(before);
      const listed = await t1.call<{ interrupts: unknown[] }>('GET', `/v1/interrupts?runId=${runId}`);
      expect(listed.interrupts).toHaveLength(1);

      expect(
        await resolve(runId, 'gate', { action: 'accept', feedback: 'Q3; finance owns it' }),
      ).toMatchObject({ status: 'resolved' });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      expectOneInterruptLifecycle(events, { nodeId: 'gate', kind: 'approval', terminal: 'run.completed' });
      const notes = payloadsOf(events, 'log.appended').map(
        (p) => (p.fields as { note?: Payload } | undefined)?.note,
      );
      expect(notes).toEqual([
        expect.objectContaining({ type: 'ask', question: 'Which quarter is this budget for?', askedBy: T1 }),
        expect.objectContaining({ type: 'ask', question: 'Who owns it?', askedBy: T1B }),
      ]);
      expect(one(events, 'approval.received')).toMatchObject({
        action: 'accept',
        decidedBy: T1,
        feedback: 'Q3; finance owns it',
      });
      expectOrder(events, 'node.suspended', 'log.appended', 'interrupt.resolved', 'node.resumed');
    },
  );

  it.concurrent(
    "legacy decision 'rejected': without feedback a reject, with feedback a reject carrying it (no refine offered) or a refine (refine offered)",
    async () => {
      const legacy = (runId: string, body: unknown) =>
        t1.call<{ status: string }>('POST', `/v1/runs/${runId}/approvals/gate`, body);
      const [plain, withFeedback, refineGate] = await Promise.all([
        start('conformance-approval'),
        start('conformance-approval'),
        start(wf('refine')),
      ]);
      await Promise.all([
        waiting(plain, 'waiting-approval', 'gate', 'approval'),
        waiting(withFeedback, 'waiting-approval', 'gate', 'approval'),
        waiting(refineGate, 'waiting-approval', 'gate', 'approval'),
      ]);
      await refused(plain, () => legacy(plain, { decision: 'timeout' }), 400, 'validation_error');
      await refused(plain, () => legacy(plain, { decision: 'maybe' }), 400, 'validation_error');
      await refused(plain, () => legacy(plain, {}), 400, 'validation_error');

      expect(await legacy(plain, { decision: 'rejected' })).toMatchObject({ status: 'resolved' });
      expect(await legacy(withFeedback, { decision: 'rejected', feedback: 'too expensive' })).toMatchObject({
        status: 'resolved',
      });
      expect(await legacy(refineGate, { decision: 'rejected', feedback: 'tighten the title' })).toMatchObject(
        { status: 'resolved' },
      );
      const [plainDone, feedbackDone] = await Promise.all([
        waitStatus(plain, 'failed'),
        waitStatus(withFeedback, 'failed'),
      ]);
      await waitStatus(refineGate, 'completed');
      for (const done of [plainDone, feedbackDone])
        expect(done.error).toMatchObject({ code: 'approval_rejected' });

      const plainEvents = await t1.listEvents(plain);
      const plainResolved = expectOneInterruptLifecycle(plainEvents, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.failed',
      }).resolved;
      expect(plainResolved).toMatchObject({ action: 'reject', decision: 'rejected', resolvedBy: T1 });
      const plainReceived = one(plainEvents, 'approval.received');
      expect(plainReceived).toMatchObject({ action: 'reject', decidedBy: T1 });
      expect(plainReceived).not.toHaveProperty('feedback');

      const feedbackEvents = await t1.listEvents(withFeedback);
      expectOneInterruptLifecycle(feedbackEvents, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.failed',
      });
      expect(one(feedbackEvents, 'approval.received')).toMatchObject({
        action: 'reject',
        decidedBy: T1,
        feedback: 'too expensive',
      });
      expect(one(feedbackEvents, 'node.failed')).toMatchObject({ error: { code: 'approval_rejected' } });

      const refineEvents = await t1.listEvents(refineGate);
      const refineResolved = expectOneInterruptLifecycle(refineEvents, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.completed',
      }).resolved;
      const refineFeedback = { scope: 'whole', text: 'tighten the title' };
      expect(refineResolved).toMatchObject({
        action: 'refine',
        decision: 'changes-requested',
        resumeValue: { action: 'refine', refineFeedback },
      });
      expect(one(refineEvents, 'approval.received')).toMatchObject({
        action: 'refine',
        decidedBy: T1,
        refineFeedback,
      });
    },
  );

  it.concurrent(
    'approval timeout with onTimeout approve (conformance-approval-timeout-approve): still a rejection, the run fails',
    async () => {
      const runId = await start('conformance-approval-timeout-approve');
      const snap = await waiting(runId, 'waiting-approval', 'gate', 'approval');
      expect(snap.interrupt).toMatchObject({ timeoutMs: 1500 });
      const done = await waitStatus(runId, 'failed');
      expect(done.error).toMatchObject({ code: 'approval_rejected' });
      const late = await refusal(resolve(runId, 'gate', { action: 'accept' }));
      expect([late.status, late.code]).toEqual([409, 'interrupt_already_resolved']);
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.failed',
      });
      expect(resolved).toMatchObject({
        action: 'timeout',
        decision: 'rejected',
        reason: 'timeout',
        resumeValue: null,
        resolvedBy: 'system:timeout',
      });
      expect(one(events, 'approval.received')).toMatchObject({ action: 'timeout' });
      expect(one(events, 'node.failed')).toMatchObject({
        nodeId: 'gate',
        error: { code: 'approval_rejected', details: { reason: 'timeout', onTimeout: 'approve' } },
      });
      expect(ofType(events, 'run.completed')).toEqual([]);
    },
  );

  it.concurrent(
    'approval quorum (requiredApprovals 2): the first vote is pending, the same principal cannot vote twice, a second principal closes it',
    async () => {
      const runId = await start(wf('quorum'));
      const snap = await waiting(runId, 'waiting-approval', 'gate', 'approval');
      expect(snap.interrupt).toMatchObject({ data: { requiredApprovals: 2 } });
      const before = await t1.listEvents(runId);
      expect(await resolve(runId, 'gate', { action: 'accept' })).toMatchObject({ status: 'pending' });
      expect(await t1.getRun(runId)).toMatchObject({ status: 'waiting-approval', currentNodeId: 'gate' });
      expect(await t1.listEvents(runId)).toEqual(before);
      const twice = await refused(
        runId,
        () => resolve(runId, 'gate', { action: 'accept' }),
        400,
        'validation_error',
      );
      expect(twice.message).toMatch(/already voted/);
      await refused(runId, () => resolve(runId, 'gate', { action: 'reject' }), 400, 'validation_error');

      expect(await resolve(runId, 'gate', { action: 'accept', feedback: 'second' }, t1b)).toMatchObject({
        status: 'resolved',
      });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({
        action: 'accept',
        decision: 'approved',
        resolvedBy: T1B,
        resumeValue: {
          action: 'accept',
          decidedBy: T1B,
          votes: [
            expect.objectContaining({ action: 'accept', decidedBy: T1 }),
            expect.objectContaining({ action: 'accept', decidedBy: T1B, feedback: 'second' }),
          ],
        },
      });
      expect(payloadsOf(events, 'approval.received').map((p) => [p.action, p.decidedBy])).toEqual([
        ['accept', T1],
        ['accept', T1B],
      ]);
    },
  );

  it.concurrent(
    "approval quorum, rejectionPolicy 'single-veto': one reject closes the gate rejected, even after an approval",
    async () => {
      const runId = await start(wf('veto'));
      await waiting(runId, 'waiting-approval', 'gate', 'approval');
      expect(await resolve(runId, 'gate', { action: 'accept' }, t1b)).toMatchObject({ status: 'pending' });
      expect((await t1.getRun(runId)).status).toBe('waiting-approval');
      expect(await resolve(runId, 'gate', { action: 'reject', feedback: 'veto' })).toMatchObject({
        status: 'resolved',
      });
      const done = await waitStatus(runId, 'failed');
      expect(done.error).toMatchObject({ code: 'approval_rejected' });
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'approval',
        terminal: 'run.failed',
      });
      expect(resolved).toMatchObject({ action: 'reject', decision: 'rejected', resolvedBy: T1 });
      expect(payloadsOf(events, 'approval.received').map((p) => [p.action, p.decidedBy])).toEqual([
        ['accept', T1B],
        ['reject', T1],
      ]);
      expect(ofType(events, 'node.completed').map((e) => e.nodeId)).toEqual([]);
    },
  );

  it.concurrent(
    "approval quorum, rejectionPolicy 'majority': one reject of two required does not close the gate; a second does",
    async () => {
      const runId = await start(wf('majority'));
      await waiting(runId, 'waiting-approval', 'gate', 'approval');
      expect(await resolve(runId, 'gate', { action: 'reject' })).toMatchObject({ status: 'pending' });
      expect((await t1.getRun(runId)).status).toBe('waiting-approval');
      expect(await resolve(runId, 'gate', { action: 'reject' }, t1b)).toMatchObject({ status: 'resolved' });
      await waitStatus(runId, 'failed');
      const events = await t1.listEvents(runId);
      expect(
        expectOneInterruptLifecycle(events, { nodeId: 'gate', kind: 'approval', terminal: 'run.failed' })
          .resolved,
      ).toMatchObject({
        action: 'reject',
        resolvedBy: T1B,
      });
      expect(payloadsOf(events, 'approval.received').map((p) => [p.action, p.decidedBy])).toEqual([
        ['reject', T1],
        ['reject', T1B],
      ]);
    },
  );

  // ---------------------------------------------------------------- clarification

  it.concurrent(
    'clarification (conformance-clarification): map and array answer forms resume; missing or unknown question ids are refused',
    async () => {
      const [mapRun, arrayRun] = await Promise.all([
        start('conformance-clarification'),
        start('conformance-clarification'),
      ]);
      const [snap] = await Promise.all([
        waiting(mapRun, 'waiting-input', 'ask', 'clarification'),
        waiting(arrayRun, 'waiting-input', 'ask', 'clarification'),
      ]);
      expect(snap.interrupt).toMatchObject({
        data: { questions: [{ id: 'q1', question: 'What is your favorite color?' }] },
      });

      const missing = await refused(
        mapRun,
        () => resolve(mapRun, 'ask', { answers: {} }),
        400,
        'validation_error',
      );
      expect(missing.details).toMatchObject({
        errors: [{ path: '/answers/q1', message: 'is not answered' }],
      });
      const unknown = await refused(
        mapRun,
        () => resolve(mapRun, 'ask', { answers: { q1: 'blue', q9: 'x' } }),
        400,
        'validation_error',
      );
      expect(unknown.details).toMatchObject({
        errors: [{ path: '/answers/q9', message: 'is not a question of this interrupt' }],
      });
      const unknownInArray = await refused(
        arrayRun,
        () => resolve(arrayRun, 'ask', { answers: [{ id: 'q9', answer: 'x' }] }),
        400,
        'validation_error',
      );
      expect(unknownInArray.details).toMatchObject({
        errors: expect.arrayContaining([
          { path: '/answers/q9', message: 'is not a question of this interrupt' },
          { path: '/answers/q1', message: 'is not answered' },
        ]),
      });
      await refused(
        arrayRun,
        () => resolve(arrayRun, 'ask', { answers: [{ id: 'q1' }] }),
        400,
        'validation_error',
      );
      await refused(arrayRun, () => resolve(arrayRun, 'ask', { answers: 'blue' }), 400, 'validation_error');

      expect(await resolve(mapRun, 'ask', { answers: { q1: 'blue' } })).toMatchObject({ status: 'resolved' });
      expect(
        await resolve(arrayRun, 'ask', { resumeValue: { answers: [{ id: 'q1', answer: 'green' }] } }),
      ).toMatchObject({ status: 'resolved' });
      await Promise.all([waitStatus(mapRun, 'completed'), waitStatus(arrayRun, 'completed')]);

      for (const [runId, submitted, color] of [
        [mapRun, { answers: { q1: 'blue' } }, 'blue'],
        [arrayRun, { answers: [{ id: 'q1', answer: 'green' }] }, 'green'],
      ] as const) {
        const events = await t1.listEvents(runId);
        const { resolved } = expectOneInterruptLifecycle(events, {
          nodeId: 'ask',
          kind: 'clarification',
          terminal: 'run.completed',
        });
        expect(resolved).toMatchObject({ outcome: 'resolved', resolvedBy: T1, resumeValue: submitted });
        expect(one(events, 'clarification.requested')).toMatchObject({ questions: [{ id: 'q1' }] });
        expect(one(events, 'clarification.resolved')).toMatchObject({
          answers: { q1: color },
          answeredBy: T1,
        });
        expect(one(events, 'node.completed')).toMatchObject({
          nodeId: 'ask',
          outputs: { answers: { q1: color } },
        });
        expect(ofType(events, 'approval.received')).toEqual([]);
      }
    },
  );

  // ---------------------------------------------------------------- external event

  it.concurrent(
    'external-event: waiting-external; a correlation mismatch is 422 and changes nothing; the matching event completes the run',
    async () => {
      const runId = await start(wf('external'));
      const snap = await waiting(runId, 'waiting-external', 'gate', 'external-event');
      expect(snap.interrupt).toMatchObject({
        data: { eventType: 'payment.settled', correlation: { orderId: 'o-1', region: 'eu' } },
      });
      const mismatch = await refused(
        runId,
        () =>
          resolve(runId, 'gate', {
            resumeValue: { eventPayload: { amount: 1 }, correlation: { orderId: 'o-2', region: 'eu' } },
          }),
        422,
        'correlation_mismatch',
      );
      expect(mismatch.details).toMatchObject({ eventType: 'payment.settled', mismatchedKeys: ['orderId'] });
      const unknownKey = await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: { eventPayload: {}, correlation: { tenantRef: 'x' } } }),
        422,
        'correlation_mismatch',
      );
      expect(unknownKey.details).toMatchObject({ mismatchedKeys: ['tenantRef'] });
      const noPayload = await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: { correlation: { orderId: 'o-1' } } }),
        400,
        'validation_error',
      );
      expect(noPayload.details).toMatchObject({ errors: [{ path: '/eventPayload' }] });

      const eventPayload = { amount: 4200, currency: 'EUR', settledAt: '2026-05-01T10:00:00Z' };
      expect(
        await resolve(runId, 'gate', { resumeValue: { eventPayload, correlation: { orderId: 'o-1' } } }),
      ).toMatchObject({ status: 'resolved' });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { resolved, requested } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'external-event',
        terminal: 'run.completed',
      });
      expect(requested).toMatchObject({
        data: { eventType: 'payment.settled', correlation: { orderId: 'o-1', region: 'eu' } },
      });
      expect(resolved).toMatchObject({
        outcome: 'resolved',
        resolvedBy: T1,
        resumeValue: { eventPayload, correlation: { orderId: 'o-1' } },
      });
      expect(payloadsOf(events, 'node.completed').find((p) => p.nodeId === 'gate')).toMatchObject({
        outputs: { eventPayload },
      });
      expect(ofType(events, 'node.completed').map((e) => e.nodeId)).toEqual(['gate', 'after']);
    },
  );

  // ---------------------------------------------------------------- custom

  it.concurrent('custom: any JSON value resumes (object, array, string, number, boolean, null)', async () => {
    const values: unknown[] = [
      { signed: true, by: 'alice' },
      [1, 'two', { three: 3 }],
      'signed',
      42,
      false,
      null,
    ];
    const runs = await Promise.all(values.map(() => start(wf('custom'))));
    const [snap] = await Promise.all(runs.map((r) => waiting(r, 'waiting-input', 'gate', 'custom')));
    expect(snap!.interrupt).toMatchObject({
      data: { customKind: 'vendor.signature', payload: { document: 'contract-7' } },
    });
    const replies = await Promise.all(runs.map((r, i) => resolve(r, 'gate', { resumeValue: values[i] })));
    for (const reply of replies) expect(reply.status).toBe('resolved');
    await Promise.all(runs.map((r) => waitStatus(r, 'completed')));
    for (const [i, runId] of runs.entries()) {
      const value = values[i];
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'custom',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({ outcome: 'resolved', resolvedBy: T1 });
      expect(resolved.resumeValue).toEqual(value);
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      expect(payloadsOf(events, 'node.completed').find((p) => p.nodeId === 'gate')?.outputs).toEqual(
        isObject ? value : { value },
      );
    }
  });

  // ---------------------------------------------------------------- resumeSchema

  it.concurrent(
    'resumeSchema (core.custom config.resumeSchema): a violating value is 400 validation_error with details.errors; a valid one resumes',
    async () => {
      const runId = await start(wf('schema'));
      const snap = await waiting(runId, 'waiting-input', 'gate', 'custom');
      expect(snap.interrupt).toMatchObject({ resumeSchema: { required: ['approved', 'quantity'] } });
      const wrongTypes = await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: { approved: 'yes', quantity: 0 } }),
        400,
        'validation_error',
      );
      expect(wrongTypes.details).toMatchObject({
        errors: expect.arrayContaining([
          expect.objectContaining({ path: '/approved', message: expect.any(String) }),
          expect.objectContaining({ path: '/quantity', message: expect.any(String) }),
        ]),
      });
      const missing = await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: { approved: true } }),
        400,
        'validation_error',
      );
      expect(missing.details).toMatchObject({
        errors: [expect.objectContaining({ path: '', message: expect.stringContaining('quantity') })],
      });
      await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: { approved: true, quantity: 2, extra: 1 } }),
        400,
        'validation_error',
      );
      await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: 'approved' }),
        400,
        'validation_error',
      );

      const value = { approved: true, quantity: 3, note: 'ship it' };
      expect(await resolve(runId, 'gate', { resumeValue: value })).toMatchObject({ status: 'resolved' });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { requested, resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'custom',
        terminal: 'run.completed',
      });
      expect(requested).toMatchObject({ resumeSchema: { required: ['approved', 'quantity'] } });
      expect(resolved).toMatchObject({ resumeValue: value, resolvedBy: T1 });
      expect(payloadsOf(events, 'node.completed').find((p) => p.nodeId === 'gate')).toMatchObject({
        outputs: value,
      });
    },
  );

  // ---------------------------------------------------------------- low confidence

  it.concurrent(
    'low-confidence (conformance-agent-low-confidence): agent.decided 0.5 < 0.7 suspends waiting-approval; resolving completes',
    async () => {
      const runId = await start('conformance-agent-low-confidence');
      const snap = await waiting(runId, 'waiting-approval', 'low-conf-decider', 'low-confidence');
      expect(snap.interrupt).toMatchObject({
        data: { agentId: 'core.conformance.low-conf-decider', threshold: 0.7, observed: 0.5 },
      });
      await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: { ok: true } }),
        404,
        'interrupt_not_found',
      );
      const ratified = { route: 'human-reviewed', approved: true };
      expect(await resolve(runId, 'low-conf-decider', { resumeValue: ratified })).toMatchObject({
        status: 'resolved',
      });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'low-conf-decider',
        kind: 'low-confidence',
        reason: 'low-confidence',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({ resumeValue: ratified, resolvedBy: T1 });
      expect(one(events, 'agent.decided')).toMatchObject({
        agentId: 'core.conformance.low-conf-decider',
        confidence: 0.5,
      });
      expectOrder(events, 'agent.decided', 'interrupt.requested', 'node.suspended');
      expect(one(events, 'node.completed')).toMatchObject({
        nodeId: 'low-conf-decider',
        outputs: { decision: ratified },
      });
    },
  );

  it.concurrent(
    'low-confidence: POST /v1/runs configurable.escalationThreshold 0.4 (and 0.5, equal) reaches the engine; the run does not suspend',
    async () => {
      const [below, equal] = await Promise.all([
        start('conformance-agent-low-confidence', { configurable: { escalationThreshold: 0.4 } }),
        start('conformance-agent-low-confidence', { configurable: { escalationThreshold: 0.5 } }),
      ]);
      for (const [runId, threshold] of [
        [below, 0.4],
        [equal, 0.5],
      ] as const) {
        const done = await waitFor(
          async () => {
            const s = await t1.getRun(runId);
            return ['completed', 'failed', 'waiting-approval'].includes(s.status) ? s : undefined;
          },
          { timeoutMs: WAIT_MS, what: `run ${runId} to settle` },
        );
        expect(done.status).toBe('completed');
        const events = await t1.listEvents(runId);
        expect(one(events, 'run.started')).toMatchObject({
          metadata: { configurable: { escalationThreshold: threshold } },
        });
        expect(one(events, 'agent.decided')).toMatchObject({ confidence: 0.5 });
        for (const t of ['interrupt.requested', 'node.suspended', 'interrupt.resolved'])
          expect(ofType(events, t)).toEqual([]);
        expect(events.map((e) => e.type)).toEqual([
          'run.started',
          'node.started',
          'agent.decided',
          'node.completed',
          'run.completed',
        ]);
      }
    },
  );

  // ---------------------------------------------------------------- conversation

  it.concurrent(
    'conversation gate (no participants): waiting-approval on a conversation.exchange, outcomeSchema enforced, the answer is routed on',
    async () => {
      const runId = await start(wf('conversation'));
      const snap = await waiting(runId, 'waiting-approval', 'gate', 'conversation.exchange');
      expect(snap.interrupt).toMatchObject({
        data: { conversationId: `${runId}:gate:0`, prompt: 'Which plan do you want?' },
      });
      const bad = await refused(
        runId,
        () => resolve(runId, 'gate', { resumeValue: { choice: 'enterprise' } }),
        400,
        'validation_error',
      );
      expect(bad.details).toMatchObject({ errors: [expect.objectContaining({ path: '/choice' })] });

      expect(await resolve(runId, 'gate', { resumeValue: { choice: 'pro' } })).toMatchObject({
        status: 'resolved',
      });
      await waitStatus(runId, 'completed');
      const events = await t1.listEvents(runId);
      const { resolved } = expectOneInterruptLifecycle(events, {
        nodeId: 'gate',
        kind: 'conversation.exchange',
        reason: 'conversation-input',
        terminal: 'run.completed',
      });
      expect(resolved).toMatchObject({ resumeValue: { choice: 'pro' }, resolvedBy: T1 });
      expect(payloadsOf(events, 'node.completed').find((p) => p.nodeId === 'gate')).toMatchObject({
        outputs: { outcome: { choice: 'pro' } },
      });
      expect(ofType(events, 'node.completed').map((e) => e.nodeId)).toEqual(['gate', 'after']);

      const roster = await refusal(
        t1.call(
          'POST',
          '/v1/workflows',
          gateThenNoop(wf('roster'), {
            typeId: 'core.conversationGate',
            config: { participants: [{ id: 'a' }, { id: 'b' }] },
          }),
        ),
      );
      expect([roster.status, roster.code]).toEqual([400, 'validation_error']);
    },
  );
});
