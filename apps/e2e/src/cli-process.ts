import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { REPO_ROOT, waitFor } from '@openwop/testing';

/** The built `wop` (apps/cli/dist/main.js, what the npm bin links to). */
export const WOP = resolve(REPO_ROOT, 'apps/cli/dist/main.js');

/** A `wop` process: its output so far, a way to type into it, and its exit. */
export interface WopProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  write(text: string): void;
  /** Resolves once `pattern` appears on stdout (or on stderr with `stream: 'stderr'`). */
  waitFor(
    pattern: RegExp | string,
    options?: { timeoutMs?: number; stream?: 'stdout' | 'stderr' },
  ): Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Every `wop` process started and not yet ended, so a failed test leaves none behind. */
const live = new Set<ChildProcessWithoutNullStreams>();

/** Kills every `wop` process still running (call in `afterEach`). */
export async function killLeftovers(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** The environment without the variables set to '' (so a test can unset `NO_COLOR`). */
function withoutEmpty(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

/** Starts `command` (default: node WOP `args`) with `env` on top of the test environment (`''` unsets). */
export function spawnWop(
  args: readonly string[],
  env: Record<string, string>,
  command?: { file: string; args: string[] },
  cwd: string = REPO_ROOT,
): WopProcess {
  const child = spawn(command?.file ?? process.execPath, command?.args ?? [WOP, ...args], {
    cwd,
    env: withoutEmpty({ ...process.env, NO_COLOR: '1', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('close', () => live.delete(child));
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('close', (code, signal) => r({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    write: (text) => child.stdin.write(text),
    waitFor: async (pattern, options = {}) => {
      const text = () => (options.stream === 'stderr' ? err : out);
      await waitFor(() => (typeof pattern === 'string' ? text().includes(pattern) : pattern.test(text())), {
        timeoutMs: options.timeoutMs ?? 30_000,
        what: `${String(pattern)} in wop's ${options.stream ?? 'stdout'}; stdout so far:\n${out}\nstderr:\n${err}`,
      });
    },
    exit,
  };
}

/** Runs `wop args` to its end with `input` piped in (in `cwd`, default the repository); resolves with its exit code and output. */
export async function runWop(
  args: readonly string[],
  env: Record<string, string>,
  input = '',
  timeoutMs = 60_000,
  cwd: string = REPO_ROOT,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawnWop(args, env, undefined, cwd);
  p.child.stdin.end(input);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const { code } = await p.exit.finally(() => clearTimeout(timer));
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** The NDJSON records of `--json` output; fails on any line that is not JSON. */
export function records(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
