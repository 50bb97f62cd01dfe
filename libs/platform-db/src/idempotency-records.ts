import type { EntityManager } from 'typeorm';

/** How long a Layer-1 record answers replays: idempotency.md requires at least 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

type Queryable = { query: EntityManager['query'] };

/** Where one record lives: the authenticated tenant, the routed operation and the key's digest. */
export interface IdempotencyScope {
  readonly tenant: string;
  /** The routed operation, e.g. `POST /v1/runs/:runId/cancel` (not the raw path). */
  readonly endpoint: string;
  /** A digest of the caller's key: the key itself (often a customer identifier) is never stored. */
  readonly keyDigest: string;
}

/** A final response, replayed as it was first answered. */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** The body exactly as first serialized. */
  readonly body: string;
}

/** The outcome states a settled record can hold; `retryable-failure` is recorded, never replayed. */
export type SettledState = 'completed' | 'terminal-failure' | 'retryable-failure';

/** What a request carrying a key may do. */
export type IdempotencyClaim =
  /** This request owns the key (fresh, reclaimed after a retryable failure, or after its lease ran out): execute it. */
  | { readonly kind: 'claimed' }
  /** A final outcome for the same request digest: answer it again. */
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  /** The key was used with another request digest: refuse, do not replay. */
  | { readonly kind: 'mismatch' }
  /** Another request with this key is still executing under its lease. */
  | { readonly kind: 'in-flight'; readonly leaseExpiresAt: Date };

interface RecordRow {
  request_digest: string;
  state: 'pending' | SettledState;
  lease_expires_at: Date | null;
  response_status: number | null;
  response_headers: Record<string, string | string[]> | null;
  response_body: string | null;
}

/**
 * Claims `scope` for one execution, atomically: an absent record is inserted `pending` under
 * `owner`'s lease; a record of the same request digest is taken over (compare-and-set in the same
 * statement) only when its last outcome was retryable or its owner's lease ran out; a record older
 * than `retentionMs` counts as absent. Two callers can never both be told `claimed`.
 */
export async function claimIdempotencyKey(
  ds: Queryable,
  scope: IdempotencyScope,
  requestDigest: string,
  owner: string,
  leaseMs: number,
  retentionMs = IDEMPOTENCY_RETENTION_MS,
): Promise<IdempotencyClaim> {
  const { tenant, endpoint, keyDigest } = scope;
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await ds.query<{ mine: boolean }[]>(
      `INSERT INTO idempotency_records AS r (tenant, endpoint, key_digest, request_digest, state, lease_owner, lease_expires_at)
       VALUES ($1, $2, $3, $4, 'pending', $5, now() + ($6::bigint * interval '1 millisecond'))
       ON CONFLICT (tenant, endpoint, key_digest) DO UPDATE
         SET request_digest = EXCLUDED.request_digest, state = 'pending', lease_owner = EXCLUDED.lease_owner,
             lease_expires_at = EXCLUDED.lease_expires_at, response_status = NULL, response_headers = NULL,
             response_body = NULL, updated_at = now(),
             created_at = CASE WHEN r.created_at < now() - ($7::bigint * interval '1 millisecond') THEN now() ELSE r.created_at END
         WHERE r.created_at < now() - ($7::bigint * interval '1 millisecond')
            OR (r.request_digest = EXCLUDED.request_digest
                AND (r.state = 'retryable-failure' OR (r.state = 'pending' AND r.lease_expires_at < now())))
       RETURNING r.lease_owner = $5 AS mine`,
      [tenant, endpoint, keyDigest, requestDigest, owner, leaseMs, retentionMs],
    );
    if (claimed[0]?.mine) return { kind: 'claimed' };
    const [row] = await ds.query<RecordRow[]>(
      `SELECT request_digest, state, lease_expires_at, response_status, response_headers, response_body
         FROM idempotency_records WHERE tenant = $1 AND endpoint = $2 AND key_digest = $3`,
      [tenant, endpoint, keyDigest],
    );
    if (!row) continue; // pruned or released between the two statements: claim again
    if (row.request_digest !== requestDigest) return { kind: 'mismatch' };
    if (row.state === 'pending')
      return { kind: 'in-flight', leaseExpiresAt: new Date(row.lease_expires_at ?? Date.now()) };
    if (row.state === 'retryable-failure') continue; // released by its owner after our insert lost: claim again
    return {
      kind: 'replay',
      response: {
        status: row.response_status ?? 200,
        headers: row.response_headers ?? {},
        body: row.response_body ?? '',
      },
    };
  }
  // Three races in a row with owners settling and releasing the same key: let the caller retry.
  return { kind: 'in-flight', leaseExpiresAt: new Date() };
}

/**
 * Records the outcome of `owner`'s execution. Returns false when `owner` no longer holds the lease
 * (it ran out and another request reclaimed the key); the outcome is then not recorded.
 */
export async function settleIdempotencyKey(
  ds: Queryable,
  scope: IdempotencyScope,
  owner: string,
  state: SettledState,
  response: StoredResponse,
): Promise<boolean> {
  // In a CTE: the driver answers a bare UPDATE with [rows, count], a SELECT with its rows.
  const [row] = await ds.query<{ n: number }[]>(
    `WITH settled AS (
       UPDATE idempotency_records
          SET state = $5, response_status = $6, response_headers = $7::jsonb, response_body = $8,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE tenant = $1 AND endpoint = $2 AND key_digest = $3 AND state = 'pending' AND lease_owner = $4
        RETURNING 1)
     SELECT count(*)::int AS n FROM settled`,
    [
      scope.tenant,
      scope.endpoint,
      scope.keyDigest,
      owner,
      state,
      response.status,
      JSON.stringify(response.headers),
      response.body,
    ],
  );
  return (row?.n ?? 0) > 0;
}

/**
 * Forgets `owner`'s claim: for outcomes that are not idempotent retries at all (a malformed request,
 * `400`), which idempotency.md says must not be cached.
 */
export async function releaseIdempotencyKey(
  ds: Queryable,
  scope: IdempotencyScope,
  owner: string,
): Promise<void> {
  await ds.query(
    `DELETE FROM idempotency_records
      WHERE tenant = $1 AND endpoint = $2 AND key_digest = $3 AND state = 'pending' AND lease_owner = $4`,
    [scope.tenant, scope.endpoint, scope.keyDigest, owner],
  );
}

/** Deletes records older than `retentionMs` (at least {@link IDEMPOTENCY_RETENTION_MS} in service). */
export async function pruneIdempotencyRecords(
  ds: Queryable,
  retentionMs = IDEMPOTENCY_RETENTION_MS,
): Promise<number> {
  const [row] = await ds.query<{ n: number }[]>(
    `WITH pruned AS (
       DELETE FROM idempotency_records WHERE created_at < now() - ($1::bigint * interval '1 millisecond') RETURNING 1)
     SELECT count(*)::int AS n FROM pruned`,
    [retentionMs],
  );
  return row?.n ?? 0;
}
