import type { AuditFact } from '@openwop/audit-chain';
import type { CommandEnvelope, CommandReply, OpenInterruptData } from '@openwop/contracts';
import { waitFor } from '@openwop/testing';
import {
  approvalData,
  envelope,
  gateData,
  startInterruptHarness,
  type InterruptHarness,
} from './interrupt-harness.spec';

// Escalation steps on the interrupt timer (ADR 0034) over the real platform in embedded mode and a
// fresh Postgres database. No engine runs: probe groups record the engine's topic and the audit facts.

let harness: InterruptHarness;
let platform: InterruptHarness['platform'];
let toEngine: CommandEnvelope[] = [];
let facts: AuditFact[] = [];

const escalation = {
  reminders: [{ afterMs: 300 }],
  reassign: { afterMs: 600, approvers: ['lead'] },
  defaultAction: 'reject',
};

function openData(runId: string, over: Partial<OpenInterruptData> = {}): OpenInterruptData {
  return approvalData(runId, {
    data: { ...gateData(), approversList: ['alice'], escalation },
    timeoutMs: 900,
    ...over,
  });
}

const send = <T = unknown>(command: CommandEnvelope): Promise<CommandReply<T>> => harness.send<T>(command);

async function open(runId: string, over: Partial<OpenInterruptData> = {}): Promise<void> {
  expect(await send(envelope('interrupt.open', openData(runId, over)))).toMatchObject({
    ok: true,
    data: { status: 'pending' },
  });
}

const commandsOf = (runId: string) => toEngine.filter((c) => (c.data as { runId?: string }).runId === runId);
const stepsOf = (runId: string) =>
  commandsOf(runId).map((c) => (c.type === 'run.escalate' ? (c.data as { type: string }).type : c.type));

async function stateOf(
  interruptId: string,
): Promise<{ status: string; escalated?: number; interrupt: { data: { approversList?: string[] } } }> {
  const rows: { state: never }[] = await platform.dataSource.query(
    'SELECT state FROM interrupts WHERE interrupt_id = $1',
    [interruptId],
  );
  return rows[0]!.state;
}

beforeAll(async () => {
  harness = await startInterruptHarness({
    database: 'interrupt_escalation',
    env: { INTERRUPT_TIMER_MS: '50' },
    auditProbe: true,
  });
  ({ platform, toEngine, facts } = harness);
}, 60_000);

afterAll(async () => {
  await harness?.close();
}, 30_000);

describe('escalation on the interrupt timer', () => {
  it('fires the reminder, the reassignment and the default reject in order, each once; the audit log says escalation', async () => {
    await open('esc');
    await waitFor(() => commandsOf('esc').some((c) => c.type === 'run.resume'), {
      timeoutMs: 10_000,
      what: 'the default action',
    });
    expect(stepsOf('esc')).toEqual(['interrupt.reminded', 'interrupt.reassigned', 'run.resume']);
    const [reminded, reassigned, resume] = commandsOf('esc');
    expect(reminded).toMatchObject({
      id: 'escalate:esc:gate:0:0',
      data: { interruptId: 'esc:gate:0', nodeId: 'gate', payload: { step: 0 } },
    });
    expect((reminded!.data as { payload: { ageMs: number } }).payload.ageMs).toBeGreaterThanOrEqual(300);
    expect(reassigned).toMatchObject({
      data: { payload: { step: 1, approvers: ['lead'], previousApprovers: ['alice'] } },
    });
    expect(resume).toMatchObject({ data: { outcome: 'timeout', interruptId: 'esc:gate:0' } });
    expect(await stateOf('esc:gate:0')).toMatchObject({
      status: 'expired',
      escalated: 2,
      interrupt: { data: { approversList: ['lead'] } },
    });
    await waitFor(() => facts.filter((f) => f.runId === 'esc').length === 2, { what: 'the audit facts' });
    expect(facts.filter((f) => f.runId === 'esc').map((f) => [f.action, f.route, f.who])).toEqual([
      ['reassign', 'escalation', 'system:interrupt-timer'],
      ['expire', 'escalation', 'system:interrupt-timer'],
    ]);
  });

  it('a gate the timer gets to after its whole chain fell due fires every step, in order, each once, before the default', async () => {
    // The open came 10 s after the request (say the instance owning its partition was killed): the
    // reminder (300 ms), the reassignment (600 ms) and the deadline (900 ms) are all overdue at once.
    await open('late', { requestedAt: new Date(Date.now() - 10_000).toISOString() });
    await waitFor(() => commandsOf('late').some((c) => c.type === 'run.resume'), {
      timeoutMs: 10_000,
      what: 'the default action',
    });
    await waitFor(() => facts.filter((f) => f.runId === 'late').length >= 2, { what: 'the audit facts' });
    expect(stepsOf('late')).toEqual(['interrupt.reminded', 'interrupt.reassigned', 'run.resume']);
    expect(commandsOf('late').map((c) => c.id)).toEqual([
      'escalate:late:gate:0:0',
      'escalate:late:gate:0:1',
      'resume:late:gate:0',
    ]);
    expect(commandsOf('late')[1]).toMatchObject({
      data: { payload: { step: 1, approvers: ['lead'], previousApprovers: ['alice'] } },
    });
    expect(await stateOf('late:gate:0')).toMatchObject({
      status: 'expired',
      escalated: 2,
      interrupt: { data: { approversList: ['lead'] } },
    });
    expect(facts.filter((f) => f.runId === 'late').map((f) => [f.action, f.route])).toEqual([
      ['reassign', 'escalation'],
      ['expire', 'escalation'],
    ]);
  });

  it('an answer before a step cancels the rest of the schedule', async () => {
    await open('answered', { timeoutMs: 60_000 });
    await waitFor(() => stepsOf('answered').includes('interrupt.reminded'), {
      timeoutMs: 10_000,
      what: 'the reminder',
    });
    const resolved = await send(
      envelope(
        'interrupt.resolve',
        { runId: 'answered', nodeId: 'gate', resumeValue: { action: 'accept' }, via: 'api' },
        { tenant: 't1', principal: 'alice' },
      ),
    );
    expect(resolved).toMatchObject({ ok: true, data: { status: 'resolved' } });
    const rows: { due: string | null }[] = await platform.dataSource.query(
      `SELECT escalation_due_at AS due FROM interrupts WHERE interrupt_id = 'answered:gate:0'`,
    );
    expect(rows[0]!.due).toBeNull();
    // Another interrupt's reassignment at 600 ms proves the timer kept polling past this one's.
    await open('witness');
    await waitFor(() => stepsOf('witness').includes('interrupt.reassigned'), {
      timeoutMs: 10_000,
      what: 'the witness reassignment',
    });
    expect(stepsOf('answered')).toEqual(['interrupt.reminded', 'run.resume']);
  });

  it('a row whose state cannot be read does not hold back the others (poison row)', async () => {
    await platform.dataSource.query(
      `INSERT INTO interrupts (interrupt_id, run_id, node_id, tenant, kind, key, status, state, deadline_at, escalation_due_at)
       VALUES ('poison:gate:0', 'poison', 'gate', 't1', 'approval', 'poison:gate:0', 'pending', '{"schemaVersion": 999}'::jsonb, now() - interval '1 minute', now() - interval '1 minute')`,
    );
    await open('healthy', { timeoutMs: 800 });
    await waitFor(() => commandsOf('healthy').some((c) => c.type === 'run.resume'), {
      timeoutMs: 10_000,
      what: 'the healthy row to fire',
    });
    expect(stepsOf('healthy')).toEqual(['interrupt.reminded', 'interrupt.reassigned', 'run.resume']);
    const rows: { status: string }[] = await platform.dataSource.query(
      `SELECT status FROM interrupts WHERE interrupt_id = 'poison:gate:0'`,
    );
    expect(rows[0]!.status).toBe('pending');
  });
});
