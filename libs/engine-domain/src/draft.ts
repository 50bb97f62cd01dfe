/**
 * Copy-on-first-write for the run state's large maps while one {@link EventWriter} folds a stretch
 * of events. `evolveRun` stays a pure function for every other caller (each change copies what it
 * changes); inside a writer, a map copied once belongs to that writer and later events change it in
 * place. Without this, every event of a wide run copied maps as large as the run (visits, outcomes,
 * outputs, signals), and a 4,000-node run spent seconds copying.
 */

let owned: WeakSet<object> | undefined;

/** Runs `fold` with `draft` as the set of containers it may change in place (and adds its copies to). */
export function inDraft<T>(draft: WeakSet<object>, fold: () => T): T {
  const outer = owned;
  owned = draft;
  try {
    return fold();
  } finally {
    owned = outer;
  }
}

function writable<T extends object>(o: T): T {
  if (owned?.has(o)) return o;
  const copy = (Array.isArray(o) ? [...(o as unknown[])] : { ...o }) as T;
  owned?.add(copy);
  return copy;
}

/** `record` with `key` set to `value` (an own property, whatever the key's name). */
export function withEntry<T>(record: Readonly<Record<string, T>>, key: string, value: T): Record<string, T> {
  const next = writable(record as Record<string, T>);
  // Plain assignment creates an own property for every name but `__proto__` (a setter).
  if (key === '__proto__')
    Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  else next[key] = value;
  return next;
}

/** `record` without `key` (the same record when it has no such key). */
export function withoutEntry<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  if (!Object.hasOwn(record, key)) return record;
  const next = writable(record as Record<string, T>);
  delete next[key];
  return next;
}

/** The own value of `key` in `record`, never an inherited one (`constructor`, `__proto__`). */
export function entryOf<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** `list` with `item` appended. */
export function withItem<T>(list: readonly T[], item: T): T[] {
  const next = writable(list as T[]);
  next.push(item);
  return next;
}

/** `list` without its first item matching `match` (the same list when none does). */
export function withoutFirst<T>(list: readonly T[], match: (item: T) => boolean): T[] {
  const i = list.findIndex(match);
  if (i < 0) return list as T[];
  const next = writable(list as T[]);
  next.splice(i, 1);
  return next;
}

/**
 * Where a long decision lets the process breathe. The decider is pure and never waits on a clock;
 * the host installs a checkpoint ({@link setDecisionCheckpoint}) that the executor calls between
 * node visits. It returns a promise when the current slice of synchronous work has run long enough
 * (the host awaits a macrotask turn there, so other requests and timers run), else `undefined`.
 * A checkpoint changes no decision: the same events come out with or without one.
 */
export type DecisionCheckpoint = () => Promise<void> | undefined;

let checkpoint: DecisionCheckpoint | undefined;

/** Installs (or, with `undefined`, removes) the process's decision checkpoint. */
export function setDecisionCheckpoint(next: DecisionCheckpoint | undefined): void {
  checkpoint = next;
}

/** The installed checkpoint's answer: a promise to await before the next visit, or `undefined` (go on). */
export function decisionPause(): Promise<void> | undefined {
  return checkpoint?.();
}
