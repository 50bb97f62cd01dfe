import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Why a host name is resolved: the registration check, or the delivery that pins to the result. */
export type ResolvePurpose = 'register' | 'deliver';

/** Resolves a host name to every address it has (A and AAAA), once per call. */
export type HostResolver = (hostname: string, purpose: ResolvePurpose) => Promise<string[]>;

/**
 * The host resolver webhooks use: a literal address is itself; a name is resolved with the system
 * resolver (every family, every address). A name that does not resolve has no address.
 */
export function createHostResolver(): HostResolver {
  return async (hostname) => {
    const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(name) !== 0) return [name];
    try {
      const found = await lookup(name, { all: true, verbatim: true });
      return found.map((a) => a.address);
    } catch {
      return [];
    }
  };
}
