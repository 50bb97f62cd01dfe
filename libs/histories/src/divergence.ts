/** Where two JSON values first differ: the JSON pointer, and the value on each side there. */
export interface Difference {
  readonly path: string;
  readonly recorded: unknown;
  readonly replayed: unknown;
}

/**
 * A recorded history that today's code does not reproduce: the scenario, the step (0-based, with its
 * stream, aggregate id and command type), what differed (the decision or the stored state), and the
 * first difference. A determinism error in Temporal's sense: today's code would decide an old log
 * differently, or cannot read what the old release stored.
 */
export class HistoryDivergence extends Error {
  constructor(
    readonly scenario: string,
    readonly step: number,
    readonly at: string,
    readonly what: string,
    readonly difference: Difference,
  ) {
    super(
      `determinism error: history "${scenario}" diverged at step ${step} (${at}): ${what} differs at ` +
        `${difference.path === '' ? '/' : difference.path}: recorded ${show(difference.recorded)}, replayed ${show(difference.replayed)}`,
    );
    this.name = 'HistoryDivergence';
  }
}

function show(value: unknown): string {
  if (value === undefined) return '(nothing)';
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `value` as it is stored and sent: through JSON (so `undefined` fields are gone). */
export function asJson(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The first place two JSON values differ, depth first in document order (arrays by index, objects by
 * the recorded side's keys, then keys only the replayed side has); undefined when they are equal.
 * Object key order is not compared: Postgres `jsonb` does not keep it either.
 */
export function firstDifference(recorded: unknown, replayed: unknown, path = ''): Difference | undefined {
  if (Object.is(recorded, replayed)) return undefined;
  const bothArrays = Array.isArray(recorded) && Array.isArray(replayed);
  const bothObjects =
    typeof recorded === 'object' &&
    recorded !== null &&
    !Array.isArray(recorded) &&
    typeof replayed === 'object' &&
    replayed !== null &&
    !Array.isArray(replayed);
  if (bothArrays) {
    const a = recorded as unknown[];
    const b = replayed as unknown[];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}/${i}`);
      if (d) return d;
    }
    return undefined;
  }
  if (bothObjects) {
    const a = recorded as Record<string, unknown>;
    const b = replayed as Record<string, unknown>;
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))];
    for (const k of keys) {
      const d = firstDifference(
        Object.hasOwn(a, k) ? a[k] : undefined,
        Object.hasOwn(b, k) ? b[k] : undefined,
        `${path}/${escape(k)}`,
      );
      if (d) return d;
    }
    return undefined;
  }
  return { path, recorded, replayed };
}
