import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { EMPTY_HEAD, type AuditFact, type AuditLine, type ChainHead } from '@openwop/audit-chain';
import { DATA_SOURCE } from '@openwop/platform-nest';

export interface AuditWindow {
  readonly after: number;
  readonly from?: Date;
  readonly to?: Date;
  readonly limit: number;
}

interface Row {
  seq: string;
  record: AuditFact;
  prev_hash: string;
  hash: string;
}

/** Reads a tenant's audit chain in seq order (keyset), never another tenant's. */
@Injectable()
export class AuditRepository {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  async page(tenant: string, window: AuditWindow): Promise<AuditLine[]> {
    const rows = await this.ds.query<Row[]>(
      `SELECT r.seq::text AS seq, r.record, r.prev_hash, r.hash
         FROM audit_records r
        WHERE r.tenant = $1 AND r.seq > $2
          AND ($3::timestamptz IS NULL OR r.at >= $3::timestamptz)
          AND ($4::timestamptz IS NULL OR r.at < $4::timestamptz)
        ORDER BY r.seq
        LIMIT $5`,
      [
        tenant,
        window.after,
        window.from?.toISOString() ?? null,
        window.to?.toISOString() ?? null,
        window.limit,
      ],
    );
    // `at` is the hashed record's own text (the column is its timestamptz, for the window).
    return rows.map((r) => ({
      tenant,
      seq: Number(r.seq),
      at: r.record.at,
      record: r.record,
      prev_hash: r.prev_hash,
      hash: r.hash,
    }));
  }

  /**
   * The tenant's chain head: its last record's seq and hash (seq 0 and the genesis hash when it has
   * none). Read from the records (the gateway's table to read, ADR 0040), not from `audit_heads`.
   */
  async head(tenant: string): Promise<ChainHead> {
    const rows = await this.ds.query<{ seq: string; hash: string }[]>(
      'SELECT r.seq::text AS seq, r.hash FROM audit_records r WHERE r.tenant = $1 ORDER BY r.seq DESC LIMIT 1',
      [tenant],
    );
    const last = rows[0];
    return last ? { seq: Number(last.seq), hash: last.hash } : EMPTY_HEAD;
  }
}
