import { DomainError } from '@openwop/kernel';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/api-key.registry';
import type { CancelRunHandler } from '../cancel-run/cancel-run.handler';
import { ApiError } from '../common/api.error';
import type { ResolveInterruptHandler, ResolveOptions } from '../resolve-interrupt/resolve-interrupt.handler';
import type { RunReadRepository } from '../runs/run-read.repository';
import { BulkDecideInterruptsController } from './bulk-decide-interrupts.controller';

const caller: Caller = { keyId: 'k1', tenant: 't1', principal: 'alice', scopes: new Set(['approvals:respond']) };

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
    handle: async (runId: string, nodeId: string, _value: unknown, _via: string, c: Caller, options: ResolveOptions) => {
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
  const c = new BulkDecideInterruptsController(resolver, {} as CancelRunHandler, {} as RunReadRepository, {} as DataSource);
  return { c, sent, most: () => most };
}

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ runId: `r${i}`, nodeId: 'gate', resumeValue: { action: 'accept' } }));

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
    expect(sent.every((s) => s.caller.via === 'bulk' && s.caller.principal === 'alice' && s.options.awaitProjection === false)).toBe(true);
    expect(most()).toBe(16);
  });

  it('derives each command id from the Idempotency-Key and the interrupt: the same request again sends the same ids', async () => {
    const first = controller();
    const second = controller();
    const other = controller();
    const a = await first.c.bulkResolve({ items: items(3) }, 'key-1', caller);
    await second.c.bulkResolve({ items: items(3) }, 'key-1', caller);
    await other.c.bulkResolve({ items: items(3) }, 'key-2', caller);
    const ids = (s: Sent[]) => [...s].sort((x, y) => x.runId.localeCompare(y.runId)).map((x) => x.options.commandId);
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
    expect(two.sent.map((s) => s.options.commandId).filter((id) => one.sent.some((s) => s.options.commandId === id))).toEqual([]);
  });
});
