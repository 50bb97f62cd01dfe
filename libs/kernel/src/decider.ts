/** A message in code: readonly `{ type, data }`. */
export interface Message<TType extends string = string, TData = unknown> {
  readonly type: TType;
  readonly data: TData;
}

/**
 * The decider shape every aggregate follows: commands in, events out, state folded from events.
 * `decide` and `evolve` are pure; time and ids arrive inside the command.
 */
export interface Decider<TCommand, TEvent, TState> {
  initialState(): TState;
  decide(command: TCommand, state: TState): readonly TEvent[];
  evolve(state: TState, event: TEvent): TState;
}

/** Folds a stream of events into state. */
export function fold<TEvent, TState>(
  decider: Pick<Decider<unknown, TEvent, TState>, 'initialState' | 'evolve'>,
  events: readonly TEvent[],
  from: TState = decider.initialState(),
): TState {
  return events.reduce((state, event) => decider.evolve(state, event), from);
}
