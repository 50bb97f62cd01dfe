import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { waitFor } from '@openwop/testing';
import { callGateway as call, query, workflowDefinition } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// Escalation policies on an interrupt (issue 21 item 4, ADR 0034), both modes, real Kafka and
// Postgres: an approval gate with a reminder at 2 s, a reassignment at 4 s and the default reject
// at its 6 s timeout logs interrupt.reminded, interrupt.reassigned and the timeout's resolution in
// that order, each once, even when every process holding the interrupt timer is killed -9 between
// steps; an allow-listed loopback webhook receives the reminder; an answer before a step cancels
// the rest; a bad policy is refused at registration with the path of each problem. A timer that is
// down past the whole chain (issue 29 item 6) still fires every step, in order, each once, before
// the default.

/** A local plain-HTTP receiver: records each delivery's body and answers 204. */
class Receiver {
  readonly bodies: {
    runId: string;
    event: { type: string; sequence: number; payload: Record<string, unknown> };
  }[] = [];
  private readonly open = new Set<Socket>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Receiver['bodies'][number]);
        res.writeHead(204).end();
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.open.add(s);
      s.on('close', () => this.open.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const ESCALATION = {
  reminders: [{ afterMs: 2_000 }],
  reassign: { afterMs: 4_000, approvers: ['lead'] },
  defaultAction: 'reject',
};

const gateWorkflow = (id: string, escalation: unknown = ESCALATION, timeoutMs = 6_000) =>
  workflowDefinition(
    id,
    [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        config: {
          title: 'ship it?',
          actions: ['accept', 'reject'],
          approversList: ['alice'],
          timeoutMs,
          escalation,
        },
      },
      { id: 'after', typeId: 'core.noop' },
    ],
    [['gate', 'after']],
  );

/** The escalation-related events of a run's log, in log order. */
const STEP_TYPES = ['interrupt.reminded', 'interrupt.reassigned', 'interrupt.resolved'];

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('escalation policies, %s mode', (mode) => {
  let hut: HostUnderTest;
  const receiver = new Receiver();
  const gw = () => hut.host.gateways[0]!;
  const workflowId = `escalation-${mode}`;

  beforeAll(async () => {
    await receiver.start();
    hut = await MODES[mode]({
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_POLL_MS: '200',
      INTERRUPT_TIMER_MS: '100',
    });
    expect((await call(gw(), 'POST', '/v1/workflows', gateWorkflow(workflowId))).status).toBeLessThan(300);
    const hook = await call(gw(), 'POST', '/v1/webhooks', {
      url: `http://127.0.0.1:${receiver.port}/escalation`,
      events: ['interrupt.reminded'],
    });
    expect(hook.status).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await hut?.stop();
    await receiver.stop();
  }, 60_000);

  const startRun = async (): Promise<string> => {
    const created = await call(gw(), 'POST', '/v1/runs', { workflowId });
    expect(created.status).toBe(201);
    return created.json.runId as string;
  };
  const logOf = (runId: string) =>
    query<{ type: string; sequence: number; payload: Record<string, unknown> }>(
      hut.db.url,
      `SELECT type, sequence, doc->'payload' AS payload FROM run_events WHERE run_id = $1 ORDER BY sequence`,
      [runId],
    );
  const statusOf = async (runId: string) =>
    (await call(gw(), 'GET', `/v1/runs/${runId}`).catch(() => undefined))?.json.status;

  it('refuses a bad policy at registration with the path of each problem', async () => {
    const bad = await call(
      gw(),
      'POST',
      '/v1/workflows',
      gateWorkflow(`escalation-bad-${mode}`, {
        reminders: [{ afterMs: 7_000 }],
        reassign: { afterMs: 1_000 },
        defaultAction: 'accept',
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('validation_error');
    const paths = JSON.stringify(bad.json);
    for (const p of [
      '/nodes/0/config/escalation/reminders/0/afterMs',
      '/nodes/0/config/escalation/reassign',
      '/nodes/0/config/escalation/defaultAction',
    ]) {
      expect(paths).toContain(p);
    }
  });

  it('fires reminder, reassignment and default reject in order, each once, across kill -9 of every interrupt timer', async () => {
    const runId = await startRun();
    // The reminder reaches the allow-listed receiver through the notifier.
    const delivered = await waitFor(
      () => receiver.bodies.find((b) => b.runId === runId && b.event.type === 'interrupt.reminded'),
      {
        timeoutMs: 30_000,
        what: 'the reminder delivered to the webhook',
      },
    );
    expect(delivered.event.payload).toMatchObject({ nodeId: 'gate', step: 0 });
    expect(delivered.event.payload.ageMs as number).toBeGreaterThanOrEqual(2_000);

    // Between steps, kill -9 every process that runs the interrupt timer, then start one again.
    const holder = mode === 'embedded' ? 'embedded' : 'interrupt';
    const victims = hut.host.processes.filter((p) => p.name === holder);
    expect(victims.length).toBeGreaterThan(0);
    for (const v of victims) {
      await v.kill('SIGKILL');
      hut.host.processes.splice(hut.host.processes.indexOf(v), 1);
    }
    await hut.host.restart(holder);

    await waitFor(async () => ((await statusOf(runId)) === 'failed' ? true : undefined), {
      timeoutMs: 60_000,
      what: `run ${runId} ended by the default reject`,
    });
    const log = await waitFor(
      async () => {
        const events = await logOf(runId);
        return events.some((e) => e.type === 'run.failed') ? events : undefined;
      },
      { what: 'the run log up to run.failed' },
    );
    const steps = log.filter((e) => STEP_TYPES.includes(e.type));
    expect(steps.map((e) => e.type)).toEqual(STEP_TYPES);
    expect(steps[1]!.payload).toMatchObject({
      nodeId: 'gate',
      step: 1,
      approvers: ['lead'],
      previousApprovers: ['alice'],
    });
    // The default action is the timeout's: the gate resolved by the timer, rejected, the run failed.
    expect(log.some((e) => e.type === 'node.failed')).toBe(true);
    const [row] = await query<{
      state: { escalated?: number; interrupt: { data: { approversList?: string[] } } };
      due: string | null;
    }>(hut.db.url, `SELECT state, escalation_due_at AS due FROM interrupts WHERE run_id = $1`, [runId]);
    expect(row).toMatchObject({
      due: null,
      state: { escalated: 2, interrupt: { data: { approversList: ['lead'] } } },
    });
    // The audit log: the reassignment and the default action, both through route escalation.
    const audit = await waitFor(
      async () => {
        const rows = await query<{ action: string; route: string; who: string }>(
          hut.db.url,
          `SELECT record->>'action' AS action, record->>'route' AS route, record->>'who' AS who
             FROM audit_records WHERE record->>'runId' = $1 ORDER BY seq`,
          [runId],
        );
        return rows.length >= 2 ? rows : undefined;
      },
      { timeoutMs: 30_000, what: 'the audit records of the escalation' },
    );
    expect(audit).toEqual([
      { action: 'reassign', route: 'escalation', who: 'system:interrupt-timer' },
      { action: 'expire', route: 'escalation', who: 'system:interrupt-timer' },
    ]);
    // Reminded once on the bus too: the receiver heard this run's reminder once.
    await waitFor(
      () => receiver.bodies.some((b) => b.runId === runId && b.event.type === 'interrupt.reminded'),
      { what: 'reminder' },
    );
    expect(receiver.bodies.filter((b) => b.runId === runId).map((b) => b.event.sequence)).toEqual([
      delivered.event.sequence,
    ]);
  }, 150_000);

  it('the snapshot and the pending listing show the reassigned approvers while the gate waits', async () => {
    const longWait = `escalation-long-${mode}`;
    const def = gateWorkflow(longWait, { reassign: { afterMs: 1_000, group: 'finance' } }, 600_000);
    expect((await call(gw(), 'POST', '/v1/workflows', def)).status).toBeLessThan(300);
    const created = await call(gw(), 'POST', '/v1/runs', { workflowId: longWait });
    expect(created.status).toBe(201);
    const runId = created.json.runId as string;
    const snapshot = await waitFor(
      async () => {
        const snap = (await call(gw(), 'GET', `/v1/runs/${runId}`)).json as {
          status?: string;
          interrupt?: { data?: { approversList?: string[] } };
        };
        return snap.interrupt?.data?.approversList?.[0] === 'group:finance' ? snap : undefined;
      },
      { timeoutMs: 30_000, what: 'the snapshot showing the reassigned approvers' },
    );
    expect(snapshot.status).toBe('waiting-approval');
    expect(snapshot.interrupt?.data?.approversList).toEqual(['group:finance']);
    const [pending] = await query<{ approvers: string[] }>(
      hut.db.url,
      `SELECT data->'approversList' AS approvers FROM pending_interrupts WHERE run_id = $1`,
      [runId],
    );
    expect(pending?.approvers).toEqual(['group:finance']);
    const answered = await call(gw(), 'POST', `/v1/runs/${runId}/interrupts/gate`, {
      resumeValue: { action: 'accept' },
    });
    expect(answered.status).toBeLessThan(300);
  }, 90_000);

  it('an answer before a step cancels the rest of the schedule', async () => {
    const runId = await startRun();
    await waitFor(
      async () => ((await logOf(runId)).some((e) => e.type === 'interrupt.reminded') ? true : undefined),
      {
        timeoutMs: 30_000,
        what: 'the reminder in the run log',
      },
    );
    const answered = await call(gw(), 'POST', `/v1/runs/${runId}/interrupts/gate`, {
      resumeValue: { action: 'accept' },
    });
    expect(answered.status).toBeLessThan(300);
    await waitFor(async () => ((await statusOf(runId)) === 'completed' ? true : undefined), {
      timeoutMs: 30_000,
      what: `run ${runId} completed`,
    });
    const [row] = await query<{ status: string; due: string | null }>(
      hut.db.url,
      `SELECT status, escalation_due_at AS due FROM interrupts WHERE run_id = $1`,
      [runId],
    );
    // Nothing left to fire: the interrupt is decided and has no due step.
    expect(row).toEqual({ status: 'resolved', due: null });
    const log = await waitFor(
      async () => {
        const events = await logOf(runId);
        return events.some((e) => e.type === 'run.completed') ? events : undefined;
      },
      { what: 'the run log up to run.completed' },
    );
    expect(log.filter((e) => STEP_TYPES.includes(e.type)).map((e) => e.type)).toEqual([
      'interrupt.reminded',
      'interrupt.resolved',
    ]);
  }, 90_000);
  it('a timer down past the whole chain fires every step, in order, each once, before the default', async () => {
    // The new approver is told too: a second hook hears the reassignment.
    const hook = await call(gw(), 'POST', '/v1/webhooks', {
      url: `http://127.0.0.1:${receiver.port}/reassigned`,
      events: ['interrupt.reassigned'],
    });
    expect(hook.status).toBe(201);
    const holder = mode === 'embedded' ? 'embedded' : 'interrupt';
    const killHolders = async () => {
      const victims = hut.host.processes.filter((p) => p.name === holder);
      expect(victims.length).toBeGreaterThan(0);
      for (const v of victims) {
        await v.kill('SIGKILL');
        hut.host.processes.splice(hut.host.processes.indexOf(v), 1);
      }
      return victims.length;
    };
    let killed: number;
    let runId: string;
    if (mode === 'distributed') {
      // The fault run's case: every interrupt instance is gone when the gate is requested, so it
      // opens only once they are back, with its whole chain and its deadline already due.
      killed = await killHolders();
      runId = await startRun();
    } else {
      // One process holds everything: the gate opens, then the timer dies with it.
      runId = await startRun();
      await waitFor(
        async () =>
          (
            await query(hut.db.url, `SELECT 1 FROM interrupts WHERE run_id = $1 AND status = 'pending'`, [
              runId,
            ])
          ).length > 0
            ? true
            : undefined,
        { timeoutMs: 30_000, what: 'the gate open' },
      );
      killed = await killHolders();
    }
    const [requested] = await waitFor(
      async () => {
        const rows = await query<{ at: string }>(
          hut.db.url,
          `SELECT doc->>'timestamp' AS at FROM run_events WHERE run_id = $1 AND type = 'interrupt.requested'`,
          [runId],
        );
        return rows.length > 0 ? rows : undefined;
      },
      { timeoutMs: 30_000, what: 'the gate requested' },
    );
    // Nobody runs the timer while the reminder (2 s), the reassignment (4 s) and the deadline (6 s) fall due.
    const allDue = Date.parse(requested!.at) + 6_000 + 500;
    await waitFor(() => (Date.now() > allDue ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the whole chain to fall due',
    });
    for (let i = 0; i < killed; i++) await hut.host.restart(holder);

    await waitFor(async () => ((await statusOf(runId)) === 'failed' ? true : undefined), {
      timeoutMs: 60_000,
      what: `run ${runId} ended by the default reject`,
    });
    const log = await waitFor(
      async () => {
        const events = await logOf(runId);
        return events.some((e) => e.type === 'run.failed') ? events : undefined;
      },
      { what: 'the run log up to run.failed' },
    );
    // Every step once, in order, before the timeout's resolution: none skipped because it came late.
    const steps = log.filter((e) => STEP_TYPES.includes(e.type));
    expect(steps.map((e) => e.type)).toEqual(STEP_TYPES);
    expect(steps[0]!.payload).toMatchObject({ step: 0, approvers: ['alice'] });
    expect(steps[1]!.payload).toMatchObject({ step: 1, approvers: ['lead'], previousApprovers: ['alice'] });
    expect(steps[2]!.payload).toMatchObject({ action: 'timeout', reason: 'timeout' });
    const audit = await waitFor(
      async () => {
        const rows = await query<{ action: string; route: string }>(
          hut.db.url,
          `SELECT record->>'action' AS action, record->>'route' AS route FROM audit_records WHERE record->>'runId' = $1 ORDER BY seq`,
          [runId],
        );
        return rows.length >= 2 ? rows : undefined;
      },
      { timeoutMs: 30_000, what: 'the audit records of the escalation' },
    );
    expect(audit).toEqual([
      { action: 'reassign', route: 'escalation' },
      { action: 'expire', route: 'escalation' },
    ]);
    // Both webhooks heard their step of this run once: whoever may answer was reminded, the new approver told.
    const heard = () => receiver.bodies.filter((b) => b.runId === runId).map((b) => b.event.type);
    await waitFor(() => (heard().length >= 2 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'both steps delivered',
    });
    expect(heard().sort()).toEqual(['interrupt.reassigned', 'interrupt.reminded']);
  }, 150_000);
});
