import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Why a host name is resolved: the registration check, or the delivery that pins to the result. */
export type ResolvePurpose = 'register' | 'deliver';

/** Resolves a host name to every address it has (A and AAAA), once per call. */
export type HostResolver = (hostname: string, purpose: ResolvePurpose) => Promise<string[]>;

/**
 * Test-only override of DNS answers, per host name and purpose, from `WEBHOOK_TEST_DNS` (JSON, e.g.
 * `{"rebind.test":{"register":["93.184.216.34"],"deliver":["127.0.0.1"]}}`): lets a test play a
 * name that rebinds between registration and delivery (RFC 0093 §A.1). Names it does not list go
 * to the system resolver. Never set it in production.
 */
export const TEST_DNS_ENV = 'WEBHOOK_TEST_DNS';

type Overrides = Record<string, Partial<Record<ResolvePurpose, string[]>>>;

/**
 * The host resolver webhooks use: a literal address is itself; a name is resolved with the system
 * resolver (every family, every address), unless {@link TEST_DNS_ENV} overrides it.
 * @throws Error when `WEBHOOK_TEST_DNS` is not the JSON shape above.
 */
export function createHostResolver(env: NodeJS.ProcessEnv = process.env): HostResolver {
  const overrides = parseOverrides(env[TEST_DNS_ENV]);
  return async (hostname, purpose) => {
    const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(name) !== 0) return [name];
    const forced = overrides[name]?.[purpose];
    if (forced) return [...forced];
    try {
      const found = await lookup(name, { all: true, verbatim: true });
      return found.map((a) => a.address);
    } catch {
      return [];
    }
  };
}

function parseOverrides(raw: string | undefined): Overrides {
  if (raw === undefined || raw.trim() === '') return {};
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${TEST_DNS_ENV} must be a JSON object`);
  const out: Overrides = {};
  for (const [name, byPurpose] of Object.entries(parsed as Record<string, unknown>)) {
    const entry: Partial<Record<ResolvePurpose, string[]>> = {};
    for (const purpose of ['register', 'deliver'] as const) {
      const list = (byPurpose as Record<string, unknown> | null)?.[purpose];
      if (list === undefined) continue;
      if (!Array.isArray(list) || !list.every((a) => typeof a === 'string' && isIP(a) !== 0)) {
        throw new Error(`${TEST_DNS_ENV}.${name}.${purpose} must be a list of IP addresses`);
      }
      entry[purpose] = list as string[];
    }
    out[name.toLowerCase()] = entry;
  }
  return out;
}
