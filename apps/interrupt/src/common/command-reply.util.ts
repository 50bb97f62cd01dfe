import { refusal, type CommandEnvelope, type CommandReply } from '@openwop/contracts';
import type { CommandContext } from '@openwop/interrupt-domain';
import { DomainError } from '@openwop/kernel';

/** The decider's inputs from an envelope: its id, the authenticated actor (and its groups and roles), and the handler's clock. */
export function contextOf(command: CommandEnvelope, now: string): CommandContext {
  const { tenant, principal, groups, roles } = command.actor;
  return {
    commandId: command.id,
    now,
    tenant,
    principal,
    ...(groups !== undefined && groups.length > 0 ? { groups } : {}),
    ...(roles !== undefined && roles.length > 0 ? { roles } : {}),
  };
}

/** Runs a decision; a domain rejection becomes the refusal reply (the caller writes nothing). */
export function decided<T>(
  decide: () => T,
): { ok: true; value: T } | { ok: false; reply: CommandReply<never> } {
  try {
    return { ok: true, value: decide() };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { ok: false, reply: refusal(e.code, e.message, e.details) };
  }
}

export { refusal } from '@openwop/contracts';
