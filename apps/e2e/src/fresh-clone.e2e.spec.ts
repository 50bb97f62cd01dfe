import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, REPO_ROOT, waitFor } from '@openwop/testing';

const run = promisify(execFile);

/** A new user's environment: this one without the test tiers' keys and settings, plus `extra`. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of [
    'WOP_API_KEYS',
    'WOP_API_KEY',
    'WOP_URL',
    'DATABASE_URL',
    'OPENWOP_DATA_DIR',
    'WOP_TOKEN_KEYS',
  ])
    delete env[name];
  return env;
}

/**
 * The README's promise, literally: a fresh clone, `npm ci`, then `npx wop --help`, `npm start` and a
 * `wop run` of an example against it, with nothing else done by hand. The clone is of the committed
 * tree (HEAD), as a new user gets it; packages come from the npm cache when it has them.
 */
describe('a new user on a fresh clone', () => {
  let dir: string;
  let clone: string;
  let host: ChildProcess | undefined;
  let hostOutput = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'openwop-fresh-'));
    clone = join(dir, 'main');
  });

  afterAll(async () => {
    if (host?.pid !== undefined && host.exitCode === null) {
      const exited = new Promise((r) => host!.once('exit', r));
      process.kill(-host.pid, 'SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a command in the clone; resolves with its output, or rejects with it. */
  async function inClone(file: string, args: string[]) {
    return run(file, args, { cwd: clone, env: userEnv({}), maxBuffer: 64 << 20 });
  }

  it('installs with npm ci, offers `npx wop --help`, starts with npm start and runs an approval with wop', async () => {
    await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
    await inClone('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund']);
    // npm links the bin before `prepare` builds; the launcher must still find the CLI.
    const help = await inClone('npx', ['--no-install', 'wop', '--help']);
    expect(help.stdout).toMatch(/usage: wop <command>/);

    const port = await freePort();
    host = spawn('npm', ['start'], {
      cwd: clone,
      env: userEnv({ PORT: String(port), LOG_FORMAT: 'json' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    host.stdout!.on('data', (c: Buffer) => (hostOutput += c.toString()));
    host.stderr!.on('data', (c: Buffer) => (hostOutput += c.toString()));
    await waitFor(() => /ready in \d+ ms/.test(hostOutput) || host!.exitCode !== null, {
      timeoutMs: 180_000,
      what: 'npm start in the clone to be ready',
    });
    expect(host.exitCode).toBeNull();
    // The dev key is kept where the README says, and never printed.
    const keyFile = join(clone, '.infra/embedded/dev-api-key');
    expect(existsSync(keyFile)).toBe(true);
    expect(hostOutput).not.toContain(readFileSync(keyFile, 'utf8').trim());

    const url = `http://127.0.0.1:${port}`;
    const wop = await inClone('npx', [
      '--no-install',
      'wop',
      'run',
      'examples/approval.yaml',
      '--action',
      'accept',
      '--url',
      url,
    ]);
    expect(wop.stdout).toContain('✔ run completed');
  });
});
