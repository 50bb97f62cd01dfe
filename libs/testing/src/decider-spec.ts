// Given/when/then for any aggregate written as the kernel's `Decider`: pure (no I/O, no clock), and
// test-runner-neutral (node:assert), so unit specs, property tests and scripts can all use it.
import { AssertionError, deepStrictEqual } from 'node:assert/strict';
import { fold, type Decider, type DomainError } from '@openwop/kernel';

/** What happened before: the aggregate's past events, or a state to start from. */
export type Given<TEvent, TState> = readonly TEvent[] | { readonly state: TState };

/**
 * What a thrown error must be: an instance of a class, or an object it matches partially (the keys
 * named, recursively; arrays element by element), e.g. `{ code: 'validation_error' }`.
 */
export type ErrorCheck<TError> =
  | (abstract new (...args: never[]) => TError)
  | Readonly<Record<string, unknown>>;

export interface DeciderSpecOptions<TEvent> {
  /** Runs on every decided event (e.g. a wire-schema check); throw to fail. */
  readonly check?: (event: TEvent) => void;
}

export interface DeciderSpec<TCommand, TEvent, TState> {
  /**
   * Starts a case from past events (folded from `initialState()`) or from `{ state }`; nothing by
   * default. Unbound (`const { given } = spec` works).
   */
  given(this: void, history?: Given<TEvent, TState>): GivenStep<TCommand, TEvent, TState>;
}

export interface GivenStep<TCommand, TEvent, TState> {
  /** The state the command is decided on. */
  readonly state: TState;
  when(command: TCommand): WhenStep<TEvent, TState>;
}

export interface WhenStep<TEvent, TState> {
  /** Asserts the decided events equal `expected` exactly (deep, strict); returns them. */
  then(expected: readonly TEvent[]): readonly TEvent[];
  /** Asserts the command is accepted and decides nothing (an idempotent repeat). */
  thenNothingHappened(): void;
  /** Asserts the command is refused (a domain error unless `check` names a class); returns the error. */
  thenThrows<TError = DomainError>(check?: ErrorCheck<TError>): TError;
  /** The decided events, for assertions `then` cannot express. */
  decided(): readonly TEvent[];
  /** The state after folding the decided events. */
  nextState(): TState;
}

/**
 * Given/when/then over a {@link Decider}:
 * `spec.given([opened]).when(resolve).then([resolved])`, `.thenThrows(InterruptGone)`,
 * `.thenThrows({ code: 'validation_error', details: { field: 'x' } })`.
 * Each step decides afresh, so a step can be asserted more than once.
 */
export function deciderSpec<TCommand, TEvent, TState>(
  decider: Decider<TCommand, TEvent, TState>,
  options: DeciderSpecOptions<TEvent> = {},
): DeciderSpec<TCommand, TEvent, TState> {
  return {
    given(history = []) {
      const state = isStateGiven(history) ? history.state : fold(decider, history);
      return {
        state,
        when(command) {
          const decide = (): readonly TEvent[] => {
            const events = decider.decide(command, state);
            if (options.check) events.forEach(options.check);
            return events;
          };
          return {
            then(expected) {
              const events = decide();
              deepStrictEqual(events, expected);
              return events;
            },
            thenNothingHappened() {
              deepStrictEqual(decide(), []);
            },
            thenThrows<TError = DomainError>(check?: ErrorCheck<TError>): TError {
              const error = thrownBy(decide);
              if (check !== undefined) expectError(error, check);
              return error as TError;
            },
            decided: decide,
            nextState: () => fold(decider, decide(), state),
          };
        },
      };
    },
  };
}

function isStateGiven<TEvent, TState>(history: Given<TEvent, TState>): history is { readonly state: TState } {
  return !Array.isArray(history);
}

function thrownBy(decide: () => unknown): unknown {
  let decided: unknown;
  try {
    decided = decide();
  } catch (error) {
    return error;
  }
  throw new AssertionError({
    message: 'expected the command to be refused, but it was decided',
    actual: decided,
  });
}

function expectError<TError>(error: unknown, check: ErrorCheck<TError>): void {
  if (typeof check === 'function') {
    if (!(error instanceof check)) {
      throw new AssertionError({
        message: `expected a thrown ${check.name}`,
        actual: error,
        expected: check,
      });
    }
    return;
  }
  deepStrictEqual(pick(error, check), check);
}

/** The part of `actual` that `shape` names, so a strict comparison with `shape` is a partial match. */
function pick(actual: unknown, shape: unknown): unknown {
  if (Array.isArray(shape)) {
    return Array.isArray(actual) && actual.length === shape.length
      ? actual.map((item, i) => pick(item, shape[i]))
      : actual;
  }
  if (shape === null || typeof shape !== 'object' || actual === null || typeof actual !== 'object')
    return actual;
  const source = actual as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(shape).map(([key, value]) => [key, pick(source[key], value)] as const),
  );
}
