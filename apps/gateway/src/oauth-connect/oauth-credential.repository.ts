import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';

/** A grant in flight, as its callback reads it back (ADR 0044). */
export interface PendingGrant {
  readonly tenant: string;
  readonly subject: string;
  readonly provider: string;
  readonly scopes: readonly string[];
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  readonly codeVerifier: string;
}

/** A stored credential without its material: what a resolve re-check and a connect read. */
export interface StoredCredential {
  readonly credentialRef: string;
  readonly scopes: readonly string[];
}

/** The sealed material of a credential a completed grant stores. */
export interface SealedCredential {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly expiresAt?: Date;
}

/**
 * The gateway's own tables of the connect flow (`oauth_grants`, `oauth_credentials`; ADR 0040 and
 * 0044). Material is written sealed and never read back here: no route answers it.
 */
@Injectable()
export class OAuthCredentialRepository {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  async recordGrant(stateHash: string, grant: PendingGrant, expiresAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_grants (state_hash, tenant, subject, provider, scopes, run_id, node_id, interrupt_id, code_verifier, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        stateHash,
        grant.tenant,
        grant.subject,
        grant.provider,
        grant.scopes,
        grant.runId,
        grant.nodeId,
        grant.interruptId,
        grant.codeVerifier,
        expiresAt,
      ],
    );
    // Ended grants are of no use; they go with the next one.
    await this.dataSource.query(`DELETE FROM oauth_grants WHERE expires_at < now() - interval '1 hour'`);
  }

  /**
   * Consumes the grant of `stateHash` for `provider` in one statement: at most one callback gets it,
   * and only while it is unconsumed and unexpired (RFC 0199 §A.2). Undefined otherwise.
   */
  async consumeGrant(stateHash: string, provider: string): Promise<PendingGrant | undefined> {
    const rows = await this.dataSource.query<RawGrant[]>(
      // As a CTE, so the driver answers rows as for a SELECT (an UPDATE answers [rows, count]).
      `WITH consumed AS (
         UPDATE oauth_grants SET consumed_at = now()
         WHERE state_hash = $1 AND provider = $2 AND consumed_at IS NULL AND expires_at > now()
         RETURNING tenant, subject, provider, scopes, run_id, node_id, interrupt_id, code_verifier
       ) SELECT * FROM consumed`,
      [stateHash, provider],
    );
    const r = rows[0];
    return r
      ? {
          tenant: r.tenant,
          subject: r.subject,
          provider: r.provider,
          scopes: r.scopes,
          runId: r.run_id,
          nodeId: r.node_id,
          interruptId: r.interrupt_id,
          codeVerifier: r.code_verifier,
        }
      : undefined;
  }

  /** The credential of `subject` for `provider` in `tenant`, without its material. */
  async find(tenant: string, subject: string, provider: string): Promise<StoredCredential | undefined> {
    const rows = await this.dataSource.query<{ credential_ref: string; scopes: string[] }[]>(
      'SELECT credential_ref, scopes FROM oauth_credentials WHERE tenant = $1 AND subject = $2 AND provider = $3',
      [tenant, subject, provider],
    );
    return rows[0] ? { credentialRef: rows[0].credential_ref, scopes: rows[0].scopes } : undefined;
  }

  /** Stores (or replaces) the credential; its reference stays the same across re-authorizations. */
  async store(
    tenant: string,
    subject: string,
    provider: string,
    scopes: readonly string[],
    sealed: SealedCredential,
  ): Promise<string> {
    const rows = await this.dataSource.query<{ credential_ref: string }[]>(
      `INSERT INTO oauth_credentials (tenant, subject, provider, credential_ref, scopes, access_token_sealed, refresh_token_sealed, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant, subject, provider) DO UPDATE SET scopes = EXCLUDED.scopes,
         access_token_sealed = EXCLUDED.access_token_sealed, refresh_token_sealed = EXCLUDED.refresh_token_sealed,
         expires_at = EXCLUDED.expires_at, updated_at = now()
       RETURNING credential_ref`,
      [
        tenant,
        subject,
        provider,
        `cred_${randomBytes(12).toString('hex')}`,
        scopes,
        sealed.accessToken,
        sealed.refreshToken ?? null,
        sealed.expiresAt ?? null,
      ],
    );
    return rows[0]!.credential_ref;
  }
}

interface RawGrant {
  readonly tenant: string;
  readonly subject: string;
  readonly provider: string;
  readonly scopes: string[];
  readonly run_id: string;
  readonly node_id: string;
  readonly interrupt_id: string;
  readonly code_verifier: string;
}
