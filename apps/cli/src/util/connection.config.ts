import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Where the embedded host writes its development key, relative to the repository root. */
export const DEV_KEY_FILE = '.infra/embedded/dev-api-key';

/** Where `npm run stack:up` writes the distributed stack's key, relative to the repository root. */
export const STACK_KEY_FILE = '.infra/stack/api-key';

/** The origins of the stack's gateways, one a line: written by `stack:up`, removed by `stack:down`. */
export const STACK_GATEWAYS_FILE = '.infra/stack/gateways';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** The server and key `wop` uses, where the key came from, and every place it looked. */
export interface Connection {
  readonly url: string;
  readonly apiKey?: string;
  /** `--api-key`, `WOP_API_KEY`, the path of the key file read, or `none`. */
  readonly keySource: string;
  /** The sources tried, in order, for a message when the server refuses the key. */
  readonly looked: readonly string[];
}

/**
 * The server and key `wop` uses: `--url`/`WOP_URL` (default {@link DEFAULT_URL}), and the key of
 * the first of:
 * 1. `--api-key`, then `WOP_API_KEY`;
 * 2. the distributed stack's key file ({@link STACK_KEY_FILE}) when the URL is one of the gateways a
 *    running `stack:up` listed ({@link STACK_GATEWAYS_FILE});
 * 3. the embedded host's development key file ({@link DEV_KEY_FILE}).
 * Key files are looked for in `cwd` and each parent folder, so `wop` works from anywhere inside the
 * repository.
 */
export function connectionOf(
  options: { url?: string; apiKey?: string },
  env: NodeJS.ProcessEnv,
  cwd: string,
): Connection {
  const url = options.url ?? env.WOP_URL ?? DEFAULT_URL;
  if (options.apiKey) return { url, apiKey: options.apiKey, keySource: '--api-key', looked: ['--api-key'] };
  if (env.WOP_API_KEY)
    return { url, apiKey: env.WOP_API_KEY, keySource: 'WOP_API_KEY', looked: ['--api-key', 'WOP_API_KEY'] };
  const looked = ['--api-key', 'WOP_API_KEY'];
  const gateways = findUp(cwd, STACK_GATEWAYS_FILE);
  if (gateways && listsOrigin(gateways, url)) {
    const file = join(dirname(gateways), 'api-key');
    looked.push(`${file} (the stack:up key; ${url} is one of its gateways)`);
    const key = readKey(file);
    if (key) return { url, apiKey: key, keySource: file, looked };
  }
  const dev = findUp(cwd, DEV_KEY_FILE);
  looked.push(dev ?? `${DEV_KEY_FILE} in ${resolve(cwd)} or a parent folder (not found)`);
  const key = dev ? readKey(dev) : undefined;
  if (dev && key) return { url, apiKey: key, keySource: dev, looked };
  return { url, keySource: 'none', looked };
}

/**
 * What `wop` says when the server refused its key (401): which key it sent, from where, and where
 * else a key can come from.
 */
export function keyHint(conn: Connection): string {
  const sent =
    conn.keySource === 'none'
      ? `wop sent no API key (it looked at: ${conn.looked.join('; ')})`
      : `wop sent the API key from ${conn.keySource}`;
  return (
    `${sent}. ${conn.url} did not accept it. Give the key with --api-key or WOP_API_KEY; ` +
    `the embedded host (npm start) keeps its key in ${DEV_KEY_FILE}, the distributed stack (npm run stack:up) in ${STACK_KEY_FILE} ` +
    '(wop reads those files from the repository folder or any folder below it).'
  );
}

function readKey(file: string): string | undefined {
  try {
    const key = readFileSync(file, 'utf8').trim();
    return key === '' ? undefined : key;
  } catch {
    return undefined;
  }
}

/** Whether the gateways file lists the origin of `url` (`http://127.0.0.1:8080`; `localhost` matches `127.0.0.1`). */
function listsOrigin(file: string, url: string): boolean {
  const origin = originOf(url);
  if (!origin) return false;
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => originOf(l.trim()))
    .some((o) => o === origin);
}

function originOf(raw: string): string | undefined {
  try {
    const u = new URL(raw);
    const host = u.hostname === 'localhost' ? '127.0.0.1' : u.hostname;
    return `${u.protocol}//${host}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
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
