// Given/when/then kit for the interrupt decider specs (not a test file itself: jest runs *.unit.spec.ts).
import { expect } from '@jest/globals';
import type { InterruptKind } from '@openwop/contracts';
import type { DomainError } from '@openwop/kernel';
import type {
  CommandContext,
  InterruptCommand,
  InterruptFacts,
  ResolveInterrupt,
} from './interrupt.commands';
import type { InterruptEvent } from './interrupt.events';
import { decideInterrupt } from './interrupt.decider';
import { evolveInterrupt, initialInterruptState, type InterruptState } from './interrupt.state';

export const NOW = '2026-11-21T10:00:00.000Z';
export const LATER = '2026-11-21T10:05:00.000Z';

export function ctx(principal = 'alice', over: Partial<CommandContext> = {}): CommandContext {
  return { commandId: `cmd-${principal}`, now: NOW, tenant: 't1', principal, ...over };
}

export function facts(
  kind: InterruptKind,
  data: unknown,
  over: Partial<InterruptFacts> = {},
): InterruptFacts {
  return {
    interruptId: 'r1:gate:0',
    runId: 'r1',
    nodeId: 'gate',
    tenant: 't1',
    kind,
    key: 'r1:gate:0',
    data,
    requestedAt: NOW,
    ...over,
  };
}

export function opened(
  kind: InterruptKind,
  data: unknown,
  over: Partial<InterruptFacts> = {},
): InterruptEvent {
  return { type: 'interrupt.opened', data: { interrupt: facts(kind, data, over) } };
}

export const approvalData = (over: Record<string, unknown> = {}) => ({
  artifactId: 'a1',
  artifactType: 'doc',
  title: 'Publish?',
  artifactData: { body: 'hello' },
  actions: ['accept', 'reject', 'refine', 'edit', 'ask'],
  ...over,
});

export function resolveWith(
  resumeValue: unknown,
  principal = 'alice',
  over: Partial<ResolveInterrupt> = {},
): ResolveInterrupt {
  return {
    type: 'ResolveInterrupt',
    runId: 'r1',
    nodeId: 'gate',
    resumeValue,
    context: ctx(principal),
    ...over,
  };
}

/** `given(events).when(command).then(events)` or `.thenRefuses(code)`. */
export function given(...events: InterruptEvent[]) {
  const state: InterruptState = events.reduce(evolveInterrupt, initialInterruptState());
  return {
    state,
    when(command: InterruptCommand) {
      const decide = () => decideInterrupt(command, state);
      return {
        events: decide,
        next: (): InterruptState => decide().reduce(evolveInterrupt, state),
        then(expected: readonly InterruptEvent[]) {
          expect(decide()).toEqual(expected);
        },
        thenRefuses(code: string, details?: Record<string, unknown>): DomainError {
          let error: unknown;
          try {
            decide();
          } catch (e) {
            error = e;
          }
          expect(error).toBeDefined();
          expect((error as DomainError).code).toBe(code);
          if (details) expect((error as DomainError).details).toMatchObject(details);
          return error as DomainError;
        },
      };
    },
  };
}
