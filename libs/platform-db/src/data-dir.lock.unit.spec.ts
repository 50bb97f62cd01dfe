import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLockedError, lockDataDir } from './data-dir.lock';

describe('lockDataDir', () => {
  const dir = () => join(mkdtempSync(join(tmpdir(), 'wop-lock-')), 'pgdata');

  it('lets one process hold a folder; a second holder is refused by name until the first releases', () => {
    const dataDir = dir();
    const held = lockDataDir(dataDir);
    expect(readFileSync(`${dataDir}.lock`, 'utf8')).toBe(String(process.pid));
    // Another live process (this test's parent, as a stand-in) asking for the same folder:
    expect(() => lockDataDir(dataDir, process.ppid)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dataDir, process.ppid)).toThrow(new RegExp(`pid ${process.pid}`));
    held.release();
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
    lockDataDir(dataDir, process.ppid).release();
  });

  it('takes over the lock of a process that is gone (a host killed with -9)', () => {
    const dataDir = dir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(`${dataDir}.lock`, gone.stdout.toString());
    const held = lockDataDir(dataDir);
    expect(readFileSync(`${dataDir}.lock`, 'utf8')).toBe(String(process.pid));
    held.release();
  });
});
