import type { Bus } from '@openwop/platform-bus';
import type { HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from './command.sender';

describe('CommandSender.envelope: the actor is the authenticated caller', () => {
  const sender = new CommandSender({} as Bus, {} as HostConfig);
  const caller: Caller = {
    keyId: 'key-carol',
    tenant: 't1',
    principal: 'carol',
    scopes: new Set(),
    groups: ['finance'],
  };

  it("carries the caller's configured groups, its key id and the bulk route", () => {
    expect(sender.envelope('interrupt.resolve', 'r1', {}, caller).actor).toEqual({
      tenant: 't1',
      principal: 'carol',
      keyId: 'key-carol',
      groups: ['finance'],
    });
    expect(sender.envelope('interrupt.resolve', 'r1', {}, { ...caller, via: 'bulk' }).actor).toMatchObject({
      via: 'bulk',
      groups: ['finance'],
    });
  });

  it('puts no groups on the actor of a caller without any, whatever the data says', () => {
    const { groups: _none, ...plain } = caller;
    const envelope = sender.envelope('interrupt.resolve', 'r1', { groups: ['finance'] }, plain);
    expect(envelope.actor).toEqual({ tenant: 't1', principal: 'carol', keyId: 'key-carol' });
  });
});
