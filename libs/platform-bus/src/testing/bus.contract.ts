import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Bus, Subscription } from '../bus.port';
import type { BusContractOptions, ContractContext } from './contract/contract.context';
import { batchContract } from './contract/batch.contract';
import { deadLetterContract, serveDeadLetterContract } from './contract/dead-letter.contract';
import { messageSizeContract } from './contract/message-size.contract';
import { orderingContract } from './contract/ordering.contract';
import { ownershipContract } from './contract/ownership.contract';
import { redeliveryContract } from './contract/redelivery.contract';
import { requestReplyContract } from './contract/request-reply.contract';
import { startPositionContract } from './contract/start-position.contract';

export type { BusContractOptions } from './contract/contract.context';

/**
 * The bus contract: the guarantees of `Bus` as one jest suite, run against every adapter
 * (STYLE.md G12). `makeBus` is called twice: both instances must belong to one deployment
 * (one broker), as two processes of a service would. Each test uses fresh topic and group names.
 *
 * @example
 * describeBusContract('InProcessBus', async () => new InProcessBus({ broker }), {
 *   deliveryTimeoutMs: 2_000, crashRecoveryTimeoutMs: 2_000,
 *   startCrashableConsumer: startInProcessCrashableConsumer,
 * });
 */
export function describeBusContract(
  name: string,
  makeBus: () => Promise<Bus>,
  options: BusContractOptions,
): void {
  describe(`Bus contract: ${name}`, () => {
    let first: Bus | undefined;
    let second: Bus | undefined;
    const subscriptions: Subscription[] = [];
    const ctx: ContractContext = {
      options,
      testTimeoutMs:
        options.testTimeoutMs ?? 3 * Math.max(options.deliveryTimeoutMs, options.crashRecoveryTimeoutMs),
      bus: () => required(first),
      peer: () => required(second),
      track: (subscription) => {
        subscriptions.push(subscription);
        return subscription;
      },
    };

    beforeAll(async () => {
      first = await makeBus();
      second = await makeBus();
      await Promise.all([first.start(), second.start()]);
    }, ctx.testTimeoutMs);

    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
    }, ctx.testTimeoutMs);

    afterAll(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
    }, ctx.testTimeoutMs);

    it('reports healthy once started', async () => {
      expect(await ctx.bus().healthy()).toBe(true);
    });

    describe('per-key order', () => orderingContract(ctx));
    describe('one owner per key within a group', () => ownershipContract(ctx));
    describe('start position of a new group', () => startPositionContract(ctx));
    describe('redelivery after a crash', () => redeliveryContract(ctx));
    describe('bounded retries and dead letters', () => deadLetterContract(ctx));
    describe('failure rule of serve', () => serveDeadLetterContract(ctx));
    describe('batch delivery', () => batchContract(ctx));
    describe('request/reply', () => requestReplyContract(ctx));
    describe('message size', () => messageSizeContract(ctx));
  });
}

function required(bus: Bus | undefined): Bus {
  if (!bus) throw new Error('the bus contract suite has not started its buses');
  return bus;
}
