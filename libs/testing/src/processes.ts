import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { waitFor } from './wait-for';

export const REPO_ROOT = resolve(__dirname, '../../..');

/** One app instance running as its own OS process, its output in a log file. */
export interface AppProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
  output(): string;
  /** Sends a signal (SIGKILL for a crash) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Where a started app comes from and how long it may take to be ready. */
export interface StartAppOptions {
  /** Default 60 s. */
  readonly timeoutMs?: number;
  /**
   * The checkout whose build runs (`script` is relative to it, and it is the working directory):
   * this one by default, or another build such as the previous release's worktree (the upgrade test).
   */
  readonly rootDir?: string;
}

/** Starts `node <script>` with `env`; resolves once `ready` matches its output. */
export async function startApp(
  name: string,
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  options: StartAppOptions = {},
): Promise<AppProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const rootDir = options.rootDir ?? REPO_ROOT;
  const logDir = resolve(REPO_ROOT, '.infra/test-logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = resolve(logDir, `${name}-${Date.now()}.log`);
  const log = createWriteStream(logFile);
  let text = '';
  const child = spawn(process.execPath, [resolve(rootDir, script)], {
    cwd: rootDir,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    text += chunk.toString();
    log.write(chunk);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exited = false;
  const exit = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
  const proc: AppProcess = {
    name,
    child,
    logFile,
    output: () => text,
    async kill(signal = 'SIGTERM') {
      if (!exited) child.kill(signal);
      await exit;
    },
  };
  let settled = false;
  // An exit before `ready` fails at once (waitFor would keep polling a dead process until its timeout).
  const exitedEarly = exit.then(() => {
    if (!settled) throw new Error(`${name} exited before it was ready:\n${text.slice(-3000)}`);
  });
  await Promise.race([
    waitFor(() => exited || ready.test(text), { timeoutMs, what: `${name} to be ready`, intervalMs: 100 }),
    exitedEarly,
  ])
    .catch((e: unknown) => {
      child.kill('SIGKILL');
      throw e;
    })
    .finally(() => (settled = true));
  return proc;
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? res(addr.port) : rej(new Error('no port'))));
    });
  });
}
