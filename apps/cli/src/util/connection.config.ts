import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Where the embedded host writes its development key, relative to the repository root. */
export const DEV_KEY_FILE = '.infra/embedded/dev-api-key';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** The server and key `wop` uses: `--url`/`WOP_URL`, `--api-key`/`WOP_API_KEY`, else the embedded host's development key file. */
export function connectionOf(
  options: { url?: string; apiKey?: string },
  env: NodeJS.ProcessEnv,
  cwd: string,
): { url: string; apiKey?: string; keySource: string } {
  const url = options.url ?? env.WOP_URL ?? DEFAULT_URL;
  if (options.apiKey) return { url, apiKey: options.apiKey, keySource: '--api-key' };
  if (env.WOP_API_KEY) return { url, apiKey: env.WOP_API_KEY, keySource: 'WOP_API_KEY' };
  const file = findUp(cwd, DEV_KEY_FILE);
  if (file) {
    const key = readFileSync(file, 'utf8').trim();
    if (key) return { url, apiKey: key, keySource: file };
  }
  return { url, keySource: 'none' };
}

/** `relative` in `from` or the closest parent folder that has it. */
function findUp(from: string, relative: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
