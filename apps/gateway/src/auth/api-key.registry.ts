import { createHash, timingSafeEqual } from 'node:crypto';
import { registerSecret } from '@openwop/observability';
import type { ApiKeyConfigEntry } from './api-key.config';

/** The authenticated caller behind a request: who it is, where it may act, and what it may do. */
export interface Caller {
  /** Loggable key id; never the key itself. */
  readonly keyId: string;
  readonly tenant: string;
  readonly principal: string;
  readonly scopes: ReadonlySet<string>;
  /** Set for the items of a bulk request: the commands it sends say so (the audit log's route). */
  readonly via?: 'bulk';
}

interface StoredKey extends Caller {
  readonly hash: Buffer;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The configured API keys, held only as SHA-256 hashes. {@link verify} hashes the presented key
 * and compares it with every stored hash using `timingSafeEqual`, without stopping at a match,
 * so timing reveals neither which key matched nor how much of one did. The keys themselves are
 * registered with the log redaction, so no log line of the process carries one.
 */
export class ApiKeyRegistry {
  private readonly keys: readonly StoredKey[];

  constructor(entries: readonly ApiKeyConfigEntry[]) {
    // Whatever their shape, the configured keys are redacted from every log line of this process.
    registerSecret(...entries.map((entry) => entry.key));
    this.keys = entries.map((entry) => {
      const hash = sha256(entry.key);
      const keyId = entry.id ?? `key-${hash.toString('hex').slice(0, 12)}`;
      return { hash, keyId, tenant: entry.tenant, principal: entry.principal ?? keyId, scopes: new Set(entry.scopes) };
    });
  }

  /** Number of configured keys. */
  get size(): number {
    return this.keys.length;
  }

  /** The caller a presented key belongs to, or `undefined` for an unknown key. */
  verify(presented: string): Caller | undefined {
    const hash = sha256(presented);
    let match: StoredKey | undefined;
    for (const stored of this.keys) {
      if (timingSafeEqual(stored.hash, hash) && match === undefined) match = stored;
    }
    if (!match) return undefined;
    const { hash: _hash, ...caller } = match;
    return caller;
  }
}
