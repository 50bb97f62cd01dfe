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
  /**
   * The principal's groups (names without `group:`), from the key configuration alone, never from a
   * request: the union over the principal's keys in its tenant. Absent when it has none.
   */
  readonly groups?: readonly string[];
  /**
   * The principal's roles (names without `role:`), from the key configuration alone, never from a
   * request: the union over the principal's keys in its tenant. Absent when it has none.
   */
  readonly roles?: readonly string[];
  /** Set for the items of a bulk request: the commands it sends say so (the audit log's route). */
  readonly via?: 'bulk';
}

interface StoredKey extends Caller {
  readonly hash: Buffer;
}

function principalId(tenant: string, principal: string): string {
  return JSON.stringify([tenant, principal]);
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
  /** Each (tenant, principal)'s groups, the union over its keys. */
  private readonly groups = new Map<string, Set<string>>();
  /** Each (tenant, principal)'s roles, the union over its keys. */
  private readonly roles = new Map<string, Set<string>>();

  constructor(entries: readonly ApiKeyConfigEntry[]) {
    // Whatever their shape, the configured keys are redacted from every log line of this process.
    registerSecret(...entries.map((entry) => entry.key));
    const keys = entries.map((entry) => {
      const hash = sha256(entry.key);
      const keyId = entry.id ?? `key-${hash.toString('hex').slice(0, 12)}`;
      return {
        hash,
        keyId,
        tenant: entry.tenant,
        principal: entry.principal ?? keyId,
        scopes: new Set(entry.scopes),
        entry,
      };
    });
    // Groups belong to the principal: every key of (tenant, principal) carries the union of their groups.
    for (const { tenant, principal, entry } of keys) {
      const id = principalId(tenant, principal);
      const union = this.groups.get(id) ?? new Set<string>();
      for (const g of entry.groups ?? []) union.add(g);
      this.groups.set(id, union);
      const held = this.roles.get(id) ?? new Set<string>();
      for (const r of entry.roles ?? []) held.add(r);
      this.roles.set(id, held);
    }
    this.keys = keys.map(({ entry: _entry, ...stored }) => {
      const groups = this.groupsOf(stored.tenant, stored.principal);
      const roles = this.rolesOf(stored.tenant, stored.principal);
      return {
        ...stored,
        ...(groups.length > 0 ? { groups } : {}),
        ...(roles.length > 0 ? { roles } : {}),
      };
    });
  }

  /**
   * The configured groups of `principal` in `tenant` (sorted), `[]` for one with none or one no key
   * names. The inbox's `approver=` filter uses it to find the items a principal's groups may answer.
   */
  groupsOf(tenant: string, principal: string): readonly string[] {
    return [...(this.groups.get(principalId(tenant, principal)) ?? [])].sort();
  }

  /** The configured roles of `principal` in `tenant` (sorted), `[]` for one with none. */
  rolesOf(tenant: string, principal: string): readonly string[] {
    return [...(this.roles.get(principalId(tenant, principal)) ?? [])].sort();
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
