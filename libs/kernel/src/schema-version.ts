/**
 * Versioned persisted shapes (ADR 0031). Every stored state document and every message on a topic
 * carries `schemaVersion`; a document without one is version 0 (the shape written before versions
 * existed). Each shape has one {@link VersionedShape}: its current version, the oldest version this
 * build still reads, and one upcaster step per version (`steps[v]` turns a version-`v` document into
 * a version-`v + 1` one). Readers call {@link upcast} at the one place the shape is read; writers call
 * {@link stamp} at the one place it is written.
 */
export interface VersionedShape<T> {
  /** Names the shape in errors, e.g. `engine run state`. */
  readonly name: string;
  /** The version this build writes. */
  readonly current: number;
  /** The oldest version this build reads (at least `current - 1`: N-1 stays readable). */
  readonly oldestReadable: number;
  /**
   * `steps[v]` upcasts a version-`v` document (its `schemaVersion` already removed) to version `v + 1`,
   * for every `v` from `oldestReadable` to `current - 1`. Pure: no clock, no I/O.
   */
  readonly steps: Readonly<Record<number, (doc: Record<string, unknown>) => Record<string, unknown>>>;
  /** Phantom: the shape's current type. */
  readonly _type?: T;
}

/** The field every versioned document carries. */
export const SCHEMA_VERSION_FIELD = 'schemaVersion';

/**
 * A stored document or message whose version this build cannot read: older than the oldest it keeps
 * an upcaster for, newer than the one it writes (written by a later release: a rolling upgrade that
 * broke the two-release rule, or a rollback past it), or not a whole number.
 */
export class UnreadableSchemaVersion extends Error {
  constructor(
    readonly shape: string,
    readonly found: unknown,
    readonly readable: { readonly oldest: number; readonly current: number },
  ) {
    super(
      `${shape}: schemaVersion ${JSON.stringify(found)} is not readable by this build ` +
        `(it reads ${readable.oldest}..${readable.current}, unversioned = 0)`,
    );
    this.name = 'UnreadableSchemaVersion';
  }
}

/** The version a document carries: its `schemaVersion`, or 0 when it has none. */
export function schemaVersionOf(doc: object): unknown {
  return Object.hasOwn(doc, SCHEMA_VERSION_FIELD)
    ? (doc as Record<string, unknown>)[SCHEMA_VERSION_FIELD]
    : 0;
}

/**
 * The current shape of a stored document of version `oldestReadable..current` (none = 0), without
 * its `schemaVersion`: each step from its version up is applied in order. The input is not changed.
 *
 * @throws {@link UnreadableSchemaVersion} for any other version.
 */
export function upcast<T>(shape: VersionedShape<T>, doc: object): T {
  const found = schemaVersionOf(doc);
  if (
    typeof found !== 'number' ||
    !Number.isInteger(found) ||
    found < shape.oldestReadable ||
    found > shape.current
  ) {
    throw new UnreadableSchemaVersion(shape.name, found, {
      oldest: shape.oldestReadable,
      current: shape.current,
    });
  }
  const { [SCHEMA_VERSION_FIELD]: _version, ...rest } = doc as Record<string, unknown>;
  let body: Record<string, unknown> = rest;
  for (let v = found; v < shape.current; v++) {
    const step = shape.steps[v];
    if (!step) throw new Error(`${shape.name}: no upcaster from schemaVersion ${v} to ${v + 1}`);
    body = step(body);
  }
  return body as T;
}

/** `value` as written: its fields and `schemaVersion: current` (first, so a reader of the raw JSON sees it at once). */
export function stamp<T extends object>(
  shape: VersionedShape<T>,
  value: T,
): T & { readonly schemaVersion: number } {
  const { [SCHEMA_VERSION_FIELD]: _old, ...rest } = value as Record<string, unknown>;
  return { [SCHEMA_VERSION_FIELD]: shape.current, ...rest } as T & { readonly schemaVersion: number };
}
