import type { EngineCommand } from '@openwop/contracts';
import type { CommandContext } from '@openwop/engine-domain';

/** The decider's inputs from the environment: the command's id and actor, and the clock read once. */
export function commandContext(command: EngineCommand): CommandContext {
  return {
    commandId: command.id,
    now: new Date().toISOString(),
    tenant: command.actor.tenant,
    principal: command.actor.principal,
  };
}
