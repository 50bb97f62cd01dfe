import { DEFAULT_TOKEN_TTL_MS } from '@openwop/token-domain';

/** How the token service mints. */
export interface TokenSettings {
  /** Token lifetime when the interrupt's `timeoutMs` is not shorter (`WOP_TOKEN_TTL_MS`, default 30 min). */
  readonly defaultTtlMs: number;
}

/**
 * Reads `WOP_TOKEN_TTL_MS`.
 *
 * @throws Error when it is not a positive integer.
 */
export function readTokenSettings(env: NodeJS.ProcessEnv = process.env): TokenSettings {
  const raw = env.WOP_TOKEN_TTL_MS;
  if (raw === undefined || raw === '') return { defaultTtlMs: DEFAULT_TOKEN_TTL_MS };
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`WOP_TOKEN_TTL_MS must be a positive integer of milliseconds, got ${raw}`);
  return { defaultTtlMs: n };
}
