import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gateway's connect flow for a `credential` interrupt (RFC 0199, ADR 0044):
 * - `oauth_grants`: one authorization-code grant in flight: the SHA-256 of its `state` (never the
 *   state), the PKCE verifier, the Subject and interrupt it is bound to, its 10-minute end, and when
 *   its callback consumed it (a state is used once);
 * - `oauth_credentials`: the credential a completed grant stored per tenant, Subject and provider:
 *   the granted scopes, an opaque reference, and the tokens sealed under the operator key ring.
 */
export class OauthCredentials1700000002330 implements MigrationInterface {
  name = 'OauthCredentials1700000002330';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE IF NOT EXISTS oauth_grants (
      state_hash text PRIMARY KEY,
      tenant text NOT NULL,
      subject text NOT NULL,
      provider text NOT NULL,
      scopes text[] NOT NULL,
      run_id text NOT NULL,
      node_id text NOT NULL,
      interrupt_id text NOT NULL,
      code_verifier text NOT NULL,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX IF NOT EXISTS oauth_grants_expires_at ON oauth_grants (expires_at)');
    await q.query(`CREATE TABLE IF NOT EXISTS oauth_credentials (
      tenant text NOT NULL,
      subject text NOT NULL,
      provider text NOT NULL,
      credential_ref text NOT NULL,
      scopes text[] NOT NULL,
      access_token_sealed text NOT NULL,
      refresh_token_sealed text,
      expires_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant, subject, provider)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS oauth_credentials');
    await q.query('DROP TABLE IF EXISTS oauth_grants');
  }
}
