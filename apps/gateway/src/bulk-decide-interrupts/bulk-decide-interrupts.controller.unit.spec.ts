import { DomainError } from '@openwop/kernel';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/api-key.registry';
import type { CancelRunHandler } from '../cancel-run/cancel-run.handler';
import { ApiError } from '../common/api.error';
import type { ResolveInterruptHandler, ResolveOptions } from '../resolve-interrupt/resolve-interrupt.handler';
import type { RunReadRepository } from '../runs/run-read.repository';
import { BulkDecideInterruptsController } from './bulk-decide-interrupts.controller';

const caller: Caller = {
  keyId: 'k1',
  tenant: 't1',
  principal: 'alice',
  scopes: new Set(['approvals:respond']),
};

interface Sent {
  runId: string;
  nodeId: string;
  caller: Caller;
  options: ResolveOptions;
}

function controller(refuse: Record<string, DomainError> = {}) {
  const sent: Sent[] = [];
  let inFlight = 0;
  let most = 0;
  const resolver = {
    handle: async (
      runId: string,
      nodeId: string,
      _value: unknown,
      _via: string,
      c: Caller,
      options: ResolveOptions,
    ) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      sent.push({ runId, nodeId, caller: c, options });
      const refusal = refuse[runId];
      if (refusal) throw refusal;
      return { runId, nodeId, interruptId: `${runId}:${nodeId}:0`, status: 'resolved' as const };
    },
  } as unknown as ResolveInterruptHandler;
  const c = new BulkDecideInterruptsController(
    resolver,
    {} as CancelRunHandler,
    {} as RunReadRepository,
    {} as DataSource,
  );
  return { c, sent, most: () => most };
}

const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    runId: `r${i}`,
    nodeId: 'gate',
    resumeValue: { action: 'accept' },
  }));

describe('BulkDecideInterruptsController.bulkResolve', () => {
  it('answers every item in order, a refused one with its own code, and never stops at a failure', async () => {
    const { c } = controller({
      r1: new DomainError('forbidden', 'alice is not on the approvers list'),
      r2: ApiError.notFound('Run r2 not found.'),
      r3: new Error('bus down') as DomainError,
    });
    const answer = await c.bulkResolve({ items: items(5) }, undefined, caller);
    expect(answer.results.map((r) => [r.runId, r.ok ? r.status : r.error.code])).toEqual([
      ['r0', 'resolved'],
      ['r1', 'forbidden'],
      ['r2', 'not_found'],
      ['r3', 'unavailable'],
      ['r4', 'resolved'],
    ]);
  });

  it('sends each item as the bulk route (via=bulk) without the projection wait, at most 16 at once', async () => {
    const { c, sent, most } = controller();
    await c.bulkResolve({ items: items(100) }, undefined, caller);
    expect(sent).toHaveLength(100);
    expect(
      sent.every(
        (s) =>
          s.caller.via === 'bulk' && s.caller.principal === 'alice' && s.options.awaitProjection === false,
      ),
    ).toBe(true);
    expect(most()).toBe(16);
  });

  it('derives each command id from the Idempotency-Key and the interrupt: the same request again sends the same ids', async () => {
    const first = controller();
    const second = controller();
    const other = controller();
    const a = await first.c.bulkResolve({ items: items(3) }, 'key-1', caller);
    await second.c.bulkResolve({ items: items(3) }, 'key-1', caller);
    await other.c.bulkResolve({ items: items(3) }, 'key-2', caller);
    const ids = (s: Sent[]) =>
      [...s].sort((x, y) => x.runId.localeCompare(y.runId)).map((x) => x.options.commandId);
    expect(a.bulkId).toBe('key-1');
    expect(new Set(ids(first.sent)).size).toBe(3);
    expect(ids(second.sent)).toEqual(ids(first.sent));
    expect(ids(other.sent).filter((id) => ids(first.sent).includes(id))).toEqual([]);
  });

  it('without a key, each request gets its own bulk id and so its own command ids', async () => {
    const one = controller();
    const two = controller();
    const a = await one.c.bulkResolve({ items: items(2) }, undefined, caller);
    const b = await two.c.bulkResolve({ items: items(2) }, undefined, caller);
    expect(a.bulkId).not.toBe(b.bulkId);
    expect(
      two.sent
        .map((s) => s.options.commandId)
        .filter((id) => one.sent.some((s) => s.options.commandId === id)),
    ).toEqual([]);
  });
});

describe('BulkDecideInterruptsController.bulkCancel', () => {
  const cancelCaller: Caller = { ...caller, scopes: new Set(['runs:cancel']) };

  function cancelling(pending: string[], runs: Record<string, string>) {
    const cancelled: { runId: string; reason: string | undefined; caller: Caller }[] = [];
    const canceller = {
      cancel: (runId: string, reason: string | undefined, c: Caller) => {
        cancelled.push({ runId, reason, caller: c });
        return Promise.resolve({ runId, status: runs[runId] === 'completed' ? 'completed' : 'cancelling' });
      },
    } as unknown as CancelRunHandler;
    const reads = {
      requireVisible: (runId: string) => {
        const status = runs[runId];
        return status
          ? Promise.resolve({ runId, tenant: 't1', status, lastSequence: 1, snapshot: {} })
          : Promise.reject(ApiError.notFound(`Run ${runId} not found.`));
      },
    } as unknown as RunReadRepository;
    const ds = {
      query: () => Promise.resolve(pending.map((runId) => ({ run_id: runId, node_id: 'gate' }))),
    } as unknown as DataSource;
    const c = new BulkDecideInterruptsController({} as ResolveInterruptHandler, canceller, reads, ds);
    return { c, cancelled };
  }

  it('cancels the runs whose interrupt is pending, answers a repeated cancel ok, and leaves a run not waiting there alone', async () => {
    const { c, cancelled } = cancelling(['r0', 'r4'], {
      r0: 'waiting-approval',
      r1: 'cancelled',
      r2: 'running',
      r4: 'completed',
    });
    const targets = ['r0', 'r1', 'r2', 'r3', 'r4'].map((runId) => ({ runId, nodeId: 'gate' }));
    const answer = await c.bulkCancel({ items: targets, reason: 'stale' }, undefined, cancelCaller);
    expect(answer.results.map((r) => [r.runId, r.ok ? r.status : r.error.code])).toEqual([
      ['r0', 'cancelling'],
      ['r1', 'cancelled'],
      ['r2', 'interrupt_not_found'],
      ['r3', 'not_found'],
      ['r4', 'run_terminal'],
    ]);
    expect(cancelled.map((x) => [x.runId, x.reason, x.caller.via])).toEqual([
      ['r0', 'stale', 'bulk'],
      ['r4', 'stale', 'bulk'],
    ]);
  });

  it('with a filter, lists what it selected and whether more matched', async () => {
    const { c } = cancelling(['r0', 'r1', 'r2'], {
      r0: 'waiting-approval',
      r1: 'waiting-approval',
      r2: 'waiting-approval',
    });
    const answer = await c.bulkCancel({ filter: { kind: 'approval' }, limit: 2 }, undefined, cancelCaller);
    expect(answer.selected).toEqual([
      { runId: 'r0', nodeId: 'gate' },
      { runId: 'r1', nodeId: 'gate' },
    ]);
    expect(answer.truncated).toBe(true);
    expect(answer.results.map((r) => r.ok)).toEqual([true, true]);
  });
});
