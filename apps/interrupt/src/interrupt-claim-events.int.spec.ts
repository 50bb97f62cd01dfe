import type { CommandEnvelope, CommandReply } from '@openwop/contracts';
import { waitFor } from '@openwop/testing';
import { claimExpiryId, claimMessageId } from './common/claim-events.outbox';
import {
  approvalData,
  envelope,
  startInterruptHarness,
  type InterruptHarness,
} from './interrupt-harness.spec';

// Claim changes told to the run log (ADR 0035) over the real platform in embedded mode and a fresh
// Postgres database, with two interrupt service instances (two timers). No engine runs: a probe
// group records the engine's topic.

let harness: InterruptHarness;
let platform: InterruptHarness['platform'];
let toEngine: CommandEnvelope[] = [];

const send = <T = unknown>(command: CommandEnvelope): Promise<CommandReply<T>> => harness.send<T>(command);

const as = (principal: string) => ({ tenant: 't1', principal });
const claimChanges = (runId: string) =>
  toEngine
    .filter((c) => c.type === 'run.escalate' && (c.data as { runId?: string }).runId === runId)
    .map((c) => ({
      id: c.id,
      ...(c.data as { type: string; nodeId: string; interruptId: string; payload: Record<string, unknown> }),
    }));

beforeAll(async () => {
  harness = await startInterruptHarness({
    database: 'interrupt_claim_events',
    instances: 2,
    env: { INTERRUPT_TIMER_MS: '50' },
  });
  ({ platform, toEngine } = harness);
}, 60_000);

afterAll(async () => {
  await harness?.close();
}, 30_000);

describe('claim changes go to the run log', () => {
  it('tells a claim, its lapse (once, by one of two timers), the next claim and its release, in order', async () => {
    expect(await send(envelope('interrupt.open', approvalData('c1')))).toMatchObject({ ok: true });
    const claimed = await send<{ claimExpiresAt: string }>(
      envelope('interrupt.claim', { runId: 'c1', nodeId: 'gate', leaseMs: 300 }, as('alice')),
    );
    expect(claimed).toMatchObject({ ok: true, data: { claimedBy: 'alice' } });
    const expiresAt = claimed.ok ? claimed.data.claimExpiresAt : '';
    await waitFor(() => claimChanges('c1').length >= 2, {
      timeoutMs: 10_000,
      what: "the lapse of alice's lease",
    });
    const rows: { claimed_by: string | null; claim_expires_at: Date | null }[] =
      await platform.dataSource.query(
        `SELECT claimed_by, claim_expires_at FROM interrupts WHERE interrupt_id = 'c1:gate:0'`,
      );
    expect(rows[0]).toEqual({ claimed_by: null, claim_expires_at: null });
    expect(await send(envelope('interrupt.claim', { runId: 'c1', nodeId: 'gate' }, as('bob')))).toMatchObject(
      { ok: true },
    );
    expect(
      await send(envelope('interrupt.release', { runId: 'c1', nodeId: 'gate' }, as('bob'))),
    ).toMatchObject({ ok: true });
    await waitFor(() => claimChanges('c1').length >= 4, {
      timeoutMs: 10_000,
      what: "bob's claim and release",
    });
    const changes = claimChanges('c1');
    expect(changes.map(({ type, payload }) => [type, payload])).toEqual([
      ['interrupt.claimed', { claimedBy: 'alice', expiresAt }],
      ['interrupt.released', { previousClaimant: 'alice', reason: 'expired' }],
      ['interrupt.claimed', { claimedBy: 'bob', expiresAt: expect.any(String) }],
      ['interrupt.released', { previousClaimant: 'bob', reason: 'released' }],
    ]);
    expect(changes[1]!.id).toBe(claimMessageId('c1:gate:0', claimExpiryId('c1:gate:0', expiresAt), 0));
    // Ids fit the engine's 128-character causationId whatever the interrupt id's length.
    expect(changes.every((c) => /^claim:[\w-]{43}$/.test(c.id))).toBe(true);
    expect(changes.every((c) => c.interruptId === 'c1:gate:0' && c.nodeId === 'gate')).toBe(true);
  });

  it('a refused claim and a release of nothing tell nothing', async () => {
    expect(await send(envelope('interrupt.open', approvalData('c2')))).toMatchObject({ ok: true });
    expect(
      await send(envelope('interrupt.claim', { runId: 'c2', nodeId: 'gate' }, as('alice'))),
    ).toMatchObject({ ok: true });
    expect(await send(envelope('interrupt.claim', { runId: 'c2', nodeId: 'gate' }, as('bob')))).toMatchObject(
      {
        ok: false,
        error: { code: 'interrupt_claimed' },
      },
    );
    expect(
      await send(envelope('interrupt.release', { runId: 'c1', nodeId: 'gate' }, as('carol'))),
    ).toMatchObject({ ok: true });
    // A later witness on the same topic proves the probe saw everything sent before it.
    expect(
      await send(envelope('interrupt.release', { runId: 'c2', nodeId: 'gate' }, as('alice'))),
    ).toMatchObject({ ok: true });
    await waitFor(() => claimChanges('c2').length >= 2, {
      timeoutMs: 10_000,
      what: "alice's claim and release",
    });
    expect(claimChanges('c2').map((c) => [c.type, c.payload])).toEqual([
      ['interrupt.claimed', { claimedBy: 'alice', expiresAt: expect.any(String) }],
      ['interrupt.released', { previousClaimant: 'alice', reason: 'released' }],
    ]);
    expect(claimChanges('c1')).toHaveLength(4);
  });
});
