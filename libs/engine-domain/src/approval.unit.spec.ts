import { payloadOf, record, resume, start, types, fixture } from './test-kit.spec';

describe('approval gate (conformance-approval)', () => {
  it('given the fixture, when started, then it suspends with interrupt.requested, approval.requested, node.suspended and asks to open the interrupt', async () => {
    const { events, state, openInterrupt } = await start(fixture('conformance-approval'));
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'interrupt.requested',
      'approval.requested',
      'node.suspended',
    ]);
    const requested = payloadOf(events, 'interrupt.requested');
    expect(requested).toEqual({
      runId: 'r1',
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
      kind: 'approval',
      key: 'r1:gate:0',
      data: {
        artifactId: 'r1:gate',
        artifactType: 'workflow-node',
        title: 'Conformance approval',
        description: 'Conformance suite — please accept to complete the run.',
        artifactData: {},
        actions: ['accept', 'reject'],
      },
      requestedAt: '2026-11-21T00:00:00.000Z',
    });
    expect(openInterrupt).toEqual(requested);
    expect(payloadOf(events, 'approval.requested')).toMatchObject({
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
      actions: ['accept', 'reject'],
    });
    expect(payloadOf(events, 'node.suspended')).toEqual({
      nodeId: 'gate',
      reason: 'approval',
      interruptId: 'r1:gate:0',
      kind: 'approval',
      key: 'r1:gate:0',
    });
    expect(record(state)).toMatchObject({
      status: 'suspended',
      pending: { interruptId: 'r1:gate:0', key: 'r1:gate:0' },
    });
  });

  it('when accepted, then interrupt.resolved, approval.received, node.resumed, node.completed, run.completed — in order, sequences continuing', async () => {
    const started = await start(fixture('conformance-approval'));
    const { events, state, openInterrupt } = await resume(started.state, {
      action: 'accept',
      decidedBy: 'alice',
      decidedAt: '2026-11-21T00:04:00.000Z',
    });
    expect(types(events)).toEqual([
      'interrupt.resolved',
      'approval.received',
      'node.resumed',
      'node.completed',
      'run.completed',
    ]);
    expect(events.map((e) => e.sequence)).toEqual([5, 6, 7, 8, 9]);
    expect(events[0]!.causationId).toBe('c2');
    expect(payloadOf(events, 'interrupt.resolved')).toEqual({
      runId: 'r1',
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
      kind: 'approval',
      key: 'r1:gate:0',
      outcome: 'resolved',
      resumeValue: { action: 'accept', decidedBy: 'alice', decidedAt: '2026-11-21T00:04:00.000Z' },
      resolvedAt: '2026-11-21T00:05:00.000Z',
      resolvedBy: 'alice',
      action: 'accept',
      decision: 'approved',
    });
    expect(payloadOf(events, 'approval.received')).toEqual({
      nodeId: 'gate',
      interruptId: 'r1:gate:0',
      action: 'accept',
      decidedBy: 'alice',
      decidedAt: '2026-11-21T00:04:00.000Z',
    });
    expect(payloadOf(events, 'node.resumed')).toEqual({ nodeId: 'gate', interruptId: 'r1:gate:0' });
    expect(payloadOf(events, 'node.completed').outputs).toMatchObject({ action: 'accept', approved: true });
    expect(openInterrupt).toBeUndefined();
    expect(state.status).toBe('completed');
  });

  it('when rejected with no routing edge, then the gate fails approval_rejected (not retryable) and run.failed names it', async () => {
    const started = await start(fixture('conformance-approval'));
    const { events, state } = await resume(started.state, { action: 'reject' });
    expect(types(events)).toEqual([
      'interrupt.resolved',
      'approval.received',
      'node.resumed',
      'node.failed',
      'run.failed',
    ]);
    expect(payloadOf(events, 'interrupt.resolved')).toMatchObject({ action: 'reject', decision: 'rejected' });
    expect(payloadOf(events, 'node.failed').error).toMatchObject({
      code: 'approval_rejected',
      retryable: false,
    });
    expect(payloadOf(events, 'run.failed')).toMatchObject({
      error: { code: 'approval_rejected' },
      failedNodeId: 'gate',
    });
    expect(state.status).toBe('failed');
  });

  it('maps legacy decisions: approved ⇒ accept; rejected with feedback ⇒ refine where the gate offers it (completes with refineFeedback)', async () => {
    const s = (await start(fixture('conformance-approval'))).state;
    expect((await resume(s, { decision: 'approved' })).state.status).toBe('completed');
    const offersRefine = (await start(fixture('conformance-approval-refine'))).state;
    const refined = await resume(offersRefine, { decision: 'rejected', feedback: 'shorter please' });
    expect(payloadOf(refined.events, 'node.completed').outputs).toMatchObject({
      action: 'refine',
      refineFeedback: { scope: 'whole', text: 'shorter please' },
    });
  });

  it('maps legacy rejected with feedback to reject on an accept/reject gate, and blank feedback to reject anywhere (as the interrupt service does)', async () => {
    const acceptReject = (await start(fixture('conformance-approval'))).state;
    const rejected = await resume(acceptReject, { decision: 'rejected', feedback: 'no' });
    expect(payloadOf(rejected.events, 'approval.received')).toMatchObject({
      action: 'reject',
      feedback: 'no',
    });
    expect(rejected.state.status).toBe('failed');
    const offersRefine = (await start(fixture('conformance-approval-refine'))).state;
    const blank = await resume(offersRefine, { decision: 'rejected', feedback: '   ' });
    expect(payloadOf(blank.events, 'approval.received')).toMatchObject({ action: 'reject' });
  });

  it('edit-accept completes with the edited artifact', async () => {
    const s = (await start(fixture('conformance-approval'))).state;
    const { events } = await resume(s, { action: 'edit-accept', editedArtifactData: { v: 2 } });
    expect(payloadOf(events, 'node.completed').outputs).toMatchObject({
      action: 'edit-accept',
      artifactData: { v: 2 },
    });
    expect(payloadOf(events, 'approval.received')).toMatchObject({
      action: 'edit-accept',
      editedArtifactData: { v: 2 },
    });
  });

  it('writes side-channel notes first: votes as approval.received, asks as log.appended; the closing vote is not repeated', async () => {
    const s = (await start(fixture('conformance-approval'))).state;
    const notes = [
      { type: 'ask', question: 'why?', answer: 'because', askedBy: 'bob' },
      { type: 'vote', action: 'accept', decidedBy: 'bob', decidedAt: '2026-11-21T00:01:00.000Z' },
      { type: 'vote', action: 'accept', decidedBy: 'alice', decidedAt: '2026-11-21T00:02:00.000Z' },
    ];
    const { events } = await resume(s, { action: 'accept', decidedBy: 'alice' }, { notes });
    expect(types(events)).toEqual([
      'log.appended',
      'approval.received',
      'approval.received',
      'interrupt.resolved',
      'node.resumed',
      'node.completed',
      'run.completed',
    ]);
    expect(events[0]!.nodeId).toBeUndefined();
    expect(events[0]!.payload).toMatchObject({ level: 'info', nodeId: 'gate', fields: { note: notes[0] } });
    expect(
      events
        .filter((e) => e.type === 'approval.received')
        .map((e) => (e.payload as { decidedBy: string }).decidedBy),
    ).toEqual(['bob', 'alice']);
  });

  it('given a resume for an interrupt the run is not waiting on, then nothing is decided', async () => {
    const s = (await start(fixture('conformance-approval'))).state;
    const stale = await resume(s, { action: 'accept' }, { interruptId: 'r1:gate:7' });
    expect(stale.events).toEqual([]);
    expect(stale.state).toBe(s);
    const done = await resume(s, { action: 'accept' });
    expect((await resume(done.state, { action: 'accept' }, { interruptId: 'r1:gate:0' })).events).toEqual([]);
  });
});

describe('approval gate: timeout is a rejection', () => {
  it.each(['conformance-approval-timeout', 'conformance-approval-timeout-approve'])(
    'given %s, the interrupt carries timeoutMs; when it times out, then action timeout / decision rejected / reason timeout and the run fails approval_rejected',
    async (id) => {
      const started = await start(fixture(id));
      expect(started.openInterrupt).toMatchObject({ timeoutMs: 1500 });
      expect(payloadOf(started.events, 'approval.requested')).toMatchObject({ timeoutMs: 1500 });
      const { events, state } = await resume(started.state, undefined, { outcome: 'timeout' });
      expect(types(events)).toEqual([
        'interrupt.resolved',
        'approval.received',
        'node.resumed',
        'node.failed',
        'run.failed',
      ]);
      expect(payloadOf(events, 'interrupt.resolved')).toMatchObject({
        outcome: 'rejected',
        resumeValue: null,
        action: 'timeout',
        decision: 'rejected',
        reason: 'timeout',
        resolvedBy: 'system:timer',
      });
      expect(payloadOf(events, 'approval.received')).toMatchObject({
        action: 'timeout',
        decidedBy: 'system:timer',
      });
      expect(payloadOf(events, 'node.failed').error).toMatchObject({
        code: 'approval_rejected',
        retryable: false,
        details: { reason: 'timeout' },
      });
      expect(payloadOf(events, 'run.failed')).toMatchObject({
        error: { code: 'approval_rejected' },
        failedNodeId: 'gate',
      });
      expect(state.status).toBe('failed');
    },
  );
});

describe('approval gate: rejection routing', () => {
  it('given reject-routed, when rejected, then the gate fails, on-reject runs, on-accept is skipped and the run completes', async () => {
    const started = await start(fixture('conformance-approval-reject-routed'));
    const { events, state } = await resume(started.state, { action: 'reject' });
    expect(events.map((e) => `${e.type}${e.nodeId ? ` ${e.nodeId}` : ''}`)).toEqual([
      'interrupt.resolved gate',
      'approval.received gate',
      'node.resumed gate',
      'node.failed gate',
      'node.started on-reject',
      'node.completed on-reject',
      'node.skipped on-accept',
      'run.completed',
    ]);
    expect(payloadOf(events, 'node.failed').error).toMatchObject({
      code: 'approval_rejected',
      retryable: false,
    });
    expect(state.status).toBe('completed');
  });

  it('given reject-routed, when accepted, then on-accept runs and on-reject is skipped', async () => {
    const started = await start(fixture('conformance-approval-reject-routed'));
    const { events, state } = await resume(started.state, { action: 'accept' });
    expect(
      events
        .filter((e) => e.type.startsWith('node.') && e.nodeId !== 'gate')
        .map((e) => `${e.type} ${e.nodeId}`),
    ).toEqual(['node.skipped on-reject', 'node.started on-accept', 'node.completed on-accept']);
    expect(state.status).toBe('completed');
  });

  it('given reject-loopback, when rejected once, then the gate is asked again under a new key and the rejection is not replayed', async () => {
    const started = await start(fixture('conformance-approval-reject-loopback'), {
      metadata: { configurable: { run: { recursionLimit: 20 } } },
    });
    expect(started.openInterrupt).toMatchObject({ interruptId: 'r1:gate:0', key: 'r1:gate:0' });
    const rejected = await resume(started.state, { action: 'reject' });
    expect(rejected.events.map((e) => `${e.type}${e.nodeId ? ` ${e.nodeId}` : ''}`)).toEqual([
      'interrupt.resolved gate',
      'approval.received gate',
      'node.resumed gate',
      'node.failed gate',
      'node.started revise',
      'node.completed revise',
      'node.started gate',
      'interrupt.requested gate',
      'approval.requested gate',
      'node.suspended gate',
    ]);
    expect(rejected.openInterrupt).toMatchObject({ interruptId: 'r1:gate:1', key: 'r1:gate:1:0' });
    expect(rejected.state.status).toBe('suspended');
    const accepted = await resume(rejected.state, { action: 'accept' });
    expect(types(accepted.events)).toEqual([
      'interrupt.resolved',
      'approval.received',
      'node.resumed',
      'node.completed',
      'run.completed',
    ]);
    expect(payloadOf(accepted.events, 'interrupt.resolved')).toMatchObject({
      key: 'r1:gate:1:0',
      action: 'accept',
    });
  });
});
