import { createHash } from 'node:crypto';
import type { AuditFact, AuditLine } from './audit-record';
import { GENESIS_HASH } from './audit-record';
import { canonicalJson } from './canonical-json';

/** Where a tenant's chain stands: its last record's seq and hash (0 and {@link GENESIS_HASH} when empty). */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export const EMPTY_HEAD: ChainHead = { seq: 0, hash: GENESIS_HASH };

/** SHA-256 (hex) over the canonical JSON of `{seq, prev_hash, record}`. */
export function recordHash(seq: number, prevHash: string, record: unknown): string {
  return sha256Hex(canonicalJson({ seq, prev_hash: prevHash, record }));
}

/** The line that appends `record` after `head`. */
export function appendTo(head: ChainHead, tenant: string, record: AuditFact): AuditLine {
  const seq = head.seq + 1;
  return {
    tenant,
    seq,
    at: record.at,
    record,
    prev_hash: head.hash,
    hash: recordHash(seq, head.hash, record),
  };
}

/** `sha256:<hex>` of a value's canonical JSON (an answer's digest). */
export function digestOf(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value ?? null))}`;
}

/** One export line as text, fields in a fixed order. */
export function lineText(line: AuditLine): string {
  const { tenant, seq, at, record, prev_hash, hash } = line;
  return JSON.stringify({ tenant, seq, at, record, prev_hash, hash });
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
