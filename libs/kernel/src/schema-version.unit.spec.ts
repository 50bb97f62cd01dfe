import {
  schemaVersionOf,
  stamp,
  upcast,
  UnreadableSchemaVersion,
  type VersionedShape,
} from './schema-version';

interface V2 {
  readonly id: string;
  readonly fullName: string;
}

// A made-up shape at version 2: v0 had `name`, v1 split nothing but added `tags`, v2 renamed `name` to `fullName`.
const shape: VersionedShape<V2> = {
  name: 'sample',
  current: 2,
  oldestReadable: 0,
  steps: {
    0: (doc) => ({ ...doc, tags: [] }),
    1: ({ name, ...rest }) => ({ ...rest, fullName: name }),
  },
};

describe('versioned shapes', () => {
  it('an unversioned document is version 0 and is upcast through every step', () => {
    expect(schemaVersionOf({ id: 'a' })).toBe(0);
    expect(upcast(shape, { id: 'a', name: 'Ann' })).toEqual({ id: 'a', tags: [], fullName: 'Ann' });
  });

  it('N-1 is upcast by the last step; the current version is read as it is, without its tag', () => {
    expect(upcast(shape, { schemaVersion: 1, id: 'a', name: 'Ann', tags: ['x'] })).toEqual({
      id: 'a',
      tags: ['x'],
      fullName: 'Ann',
    });
    expect(upcast(shape, { schemaVersion: 2, id: 'a', fullName: 'Ann' })).toEqual({
      id: 'a',
      fullName: 'Ann',
    });
  });

  it('does not change the document it reads', () => {
    const doc = { schemaVersion: 1, id: 'a', name: 'Ann', tags: [] };
    const copy = structuredClone(doc);
    upcast(shape, doc);
    expect(doc).toEqual(copy);
  });

  it.each([3, -1, 1.5, '1', null])(
    'refuses schemaVersion %p with a message naming the shape and what it reads',
    (v) => {
      expect(() => upcast(shape, { schemaVersion: v, id: 'a' })).toThrow(UnreadableSchemaVersion);
      expect(() => upcast(shape, { schemaVersion: v, id: 'a' })).toThrow(
        `sample: schemaVersion ${JSON.stringify(v)} is not readable by this build (it reads 0..2, unversioned = 0)`,
      );
    },
  );

  it('refuses versions older than the oldest readable one', () => {
    expect(() => upcast({ ...shape, oldestReadable: 1 }, { id: 'a', name: 'Ann' })).toThrow('reads 1..2');
  });

  it('stamp writes the current version first and replaces a stale tag', () => {
    const written = stamp(shape, { id: 'a', fullName: 'Ann', schemaVersion: 0 } as V2);
    expect(Object.keys(written)).toEqual(['schemaVersion', 'id', 'fullName']);
    expect(written.schemaVersion).toBe(2);
    expect(upcast(shape, JSON.parse(JSON.stringify(written)) as object)).toEqual({
      id: 'a',
      fullName: 'Ann',
    });
  });
});
