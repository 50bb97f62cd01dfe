import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** Another live process holds the data folder. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data folder ${dataDir} is in use by another embedded host (pid ${pid}); stop that one first, ` +
        'or give this one its own OPENWOP_DATA_DIR (or OPENWOP_DATA_DIR=memory); if no host runs, delete ' +
        `${dataDir}.lock`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** A held lock; `release` is idempotent. */
export interface DataDirLock {
  release(): void;
}

/**
 * Takes `<dataDir>.lock` for this process, so two embedded hosts never open one PGlite folder
 * (PGlite has no lock of its own; two writers would corrupt it). The file holds the owner's pid; a
 * lock whose pid is no longer alive (a host killed with -9) is taken over.
 *
 * @throws {@link DataDirLockedError} when a live process holds it.
 */
export function lockDataDir(dataDir: string, pid: number = process.pid): DataDirLock {
  const file = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(pid));
      closeSync(fd);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          if (ownerOf(file) === pid) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = ownerOf(file);
    if (owner !== undefined && owner !== pid && alive(owner)) throw new DataDirLockedError(dataDir, owner);
    rmSync(file, { force: true }); // stale: its owner is gone
  }
  throw new Error(`could not take the lock ${file}`);
}

function ownerOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
