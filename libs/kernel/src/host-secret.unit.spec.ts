import { loadHostSecret, type HostSecretKind } from './host-secret';

const kind = (): HostSecretKind<string> => ({
  env: 'TEST_SECRET',
  parse: (raw, from) => {
    if (!raw.startsWith('s:')) throw new Error(`${from}: not a secret`);
    return raw.trim();
  },
  generate: () => `s:${Math.random().toString(36).slice(2)}`,
  file: (dataDir) => `${dataDir}/../test-secret`,
  processValue: { current: undefined },
});
const files = new Map<string, string>();
const readOrCreate = (file: string, create: () => string) => {
  if (!files.has(file)) files.set(file, create());
  return files.get(file)!;
};
const embedded = { mode: 'embedded', dataDir: '/d/pgdata', databaseUrl: undefined } as const;

describe('loadHostSecret', () => {
  beforeEach(() => files.clear());

  it('takes the variable first, in any mode, and refuses a malformed one naming it', () => {
    for (const mode of ['embedded', 'distributed'] as const) {
      expect(loadHostSecret(kind(), { ...embedded, mode }, { TEST_SECRET: 's:x' }, readOrCreate)).toEqual({
        value: 's:x',
        source: 'env',
        from: 'TEST_SECRET',
      });
    }
    expect(() => loadHostSecret(kind(), embedded, { TEST_SECRET: 'x' }, readOrCreate)).toThrow(
      'TEST_SECRET: not a secret',
    );
    expect(files.size).toBe(0);
  });

  it('distributed without it, or with no data folder beside an external database: none, and no file', () => {
    expect(loadHostSecret(kind(), { ...embedded, mode: 'distributed' }, {}, readOrCreate)).toMatchObject({
      value: undefined,
      source: 'none',
    });
    expect(
      loadHostSecret(
        kind(),
        { mode: 'embedded', dataDir: undefined, databaseUrl: 'postgres://x' },
        { TEST_SECRET: ' ' },
        readOrCreate,
      ),
    ).toMatchObject({ value: undefined, source: 'none' });
    expect(files.size).toBe(0);
  });

  it('embedded: the key file beside the data folder, generated once and read after', () => {
    const k = kind();
    const first = loadHostSecret(k, embedded, {}, readOrCreate);
    expect(first).toMatchObject({ source: 'file', from: '/d/pgdata/../test-secret' });
    expect(loadHostSecret(kind(), embedded, {}, readOrCreate).value).toBe(first.value);
  });

  it('an in-memory embedded host: one value for the life of the process', () => {
    const k = kind();
    const memory = { mode: 'embedded', dataDir: undefined, databaseUrl: undefined } as const;
    const first = loadHostSecret(k, memory, {}, readOrCreate);
    expect(first.source).toBe('process');
    expect(loadHostSecret(k, memory, {}, readOrCreate).value).toBe(first.value);
    expect(files.size).toBe(0);
  });
});
