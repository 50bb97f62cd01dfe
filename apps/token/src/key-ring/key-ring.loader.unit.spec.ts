import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedKeyFile, loadKeyRing } from './key-ring.loader';

const secret = Buffer.alloc(32, 5).toString('base64');
const KEYS = JSON.stringify({ active: 'k1', keys: { k1: secret } });

describe('loadKeyRing', () => {
  let dir: string;
  const lines: string[] = [];
  const log = { log: (l: string) => lines.push(l), warn: (l: string) => lines.push(l) };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'token-keys-'));
    lines.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses WOP_TOKEN_KEYS in any mode and logs key ids, never the secret', () => {
    for (const mode of ['embedded', 'distributed'] as const) {
      const ring = loadKeyRing({ mode, dataDir: join(dir, 'pgdata') }, { WOP_TOKEN_KEYS: KEYS }, log);
      expect(ring.activeKid).toBe('k1');
    }
    expect(lines.join('\n')).toContain('active key k1');
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('fails fast in distributed mode without WOP_TOKEN_KEYS', () => {
    expect(() => loadKeyRing({ mode: 'distributed', dataDir: undefined }, {}, log)).toThrow(
      /WOP_TOKEN_KEYS is not set.*stack\.sh/,
    );
  });

  it('embedded mode generates a 0600 key file next to the data folder and reuses it after a restart', () => {
    const dataDir = join(dir, 'embedded', 'pgdata');
    const first = loadKeyRing({ mode: 'embedded', dataDir }, {}, log);
    const file = embeddedKeyFile(dataDir);
    expect(file).toBe(join(dir, 'embedded', 'token-keys.json'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = loadKeyRing({ mode: 'embedded', dataDir }, {}, log);
    expect(second.activeKid).toBe(first.activeKid);
    expect(second.keys[second.activeKid]?.secret.equals(first.keys[first.activeKid]!.secret)).toBe(true);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { keys: Record<string, string> };
    expect(lines.join('\n')).not.toContain(Object.values(stored.keys)[0]);
  });

  it('embedded mode with an in-memory data folder signs with a process-lifetime key', () => {
    const a = loadKeyRing({ mode: 'embedded', dataDir: undefined }, {}, log);
    const b = loadKeyRing({ mode: 'embedded', dataDir: undefined }, {}, log);
    expect(a.activeKid).not.toBe(b.activeKid);
    expect(lines.join('\n')).toMatch(/will not survive a restart/);
  });
});
