import type { EngineCommand } from '@openwop/contracts';
import type { CommandContext, RunDecision } from '@openwop/engine-domain';
import type { Clock } from '../engine.di-tokens';

/** The decider's inputs from the environment: the command's id and actor, and the clock read once. */
export function commandContext(command: EngineCommand, clock: Clock): CommandContext {
  return {
    commandId: command.id,
    now: clock.now(),
    tenant: command.actor.tenant,
    principal: command.actor.principal,
  };
}

/**
 * When a decision was taken: its events' timestamp, which is the clock read once for the command
 * (every event a decision writes carries it). What the decision sends on is stamped with it too.
 */
export function decidedAt(decision: RunDecision): string {
  return decision.events[decision.events.length - 1]!.timestamp;
}
