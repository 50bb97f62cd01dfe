import type { KeyObject } from 'node:crypto';
import { recordHash } from './audit-chain';
import { GENESIS_HASH, type AuditLine } from './audit-record';
import {
  AUDIT_HEAD_TYPE,
  checkAuditHeadSignature,
  parseSignedAuditHead,
  type SignedAuditHead,
} from './signed-head';

/** What is wrong with an export, precisely enough to find the record. `line` is 1-based in the file. */
export type AuditFinding =
  | { readonly kind: 'malformed'; readonly line: number; readonly message: string }
  | { readonly kind: 'edited'; readonly seq: number; readonly line: number; readonly message: string }
  | { readonly kind: 'missing'; readonly fromSeq: number; readonly toSeq: number; readonly message: string }
  | { readonly kind: 'reordered'; readonly seq: number; readonly line: number; readonly message: string }
  | { readonly kind: 'duplicate'; readonly seq: number; readonly line: number; readonly message: string }
  | { readonly kind: 'broken-link'; readonly seq: number; readonly line: number; readonly message: string }
  | {
      readonly kind: 'tenant-mismatch';
      readonly seq: number;
      readonly line: number;
      readonly message: string;
    }
  /** A public key was given and the export carries no signed head. */
  | { readonly kind: 'unsigned'; readonly message: string }
  /** The signed head does not verify under the given key (edited, or another key's). */
  | { readonly kind: 'bad-signature'; readonly line: number; readonly message: string }
  /** The export's record at the signed head's seq has another hash (or tenant): the chain was rewritten. */
  | { readonly kind: 'head-mismatch'; readonly seq: number; readonly message: string }
  /** The export does not hold the record the signed head names. */
  | { readonly kind: 'head-missing'; readonly seq: number; readonly message: string };

export interface VerifyOptions {
  /**
   * The export starts after the chain's start (`GET /v1/audit?after=N` or `from=`): its first
   * record's link is taken as given. Otherwise the chain must start at seq 1 on the genesis hash.
   */
  readonly partial?: boolean;
  /**
   * The host's audit public key (`GET /v1/audit/public-key`): the export must then carry a head
   * signed by it, and hold that head's record with that hash. Without it a signed head is read but
   * not checked.
   */
  readonly publicKey?: KeyObject;
}

/** The export's signed head, as read (and, with a public key, checked). */
export interface VerifiedHead {
  readonly kid: string;
  readonly tenant: string;
  readonly seq: number;
  readonly hash: string;
  readonly signedAt: string;
  /** Its signature verified under the given key and the export matches it. */
  readonly verified: boolean;
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly records: number;
  readonly tenant?: string;
  readonly firstSeq?: number;
  readonly lastSeq?: number;
  /** The hash of the last record: compare it with the host's head to detect a cut-off tail. */
  readonly lastHash?: string;
  /** The signed head line, when the export has one. */
  readonly head?: VerifiedHead;
  readonly findings: readonly AuditFinding[];
}

interface Parsed {
  readonly lineNo: number;
  readonly line: AuditLine;
}

/**
 * Verifies an audit export (NDJSON text, one {@link AuditLine} per line) with nothing but the
 * file: each record's hash against its content (an edit), the seq order (a reorder), gaps (a
 * removal), each record's `prev_hash` against its predecessor's hash (a re-hashed edit or a
 * splice), and one tenant throughout. Blank lines are ignored.
 *
 * Re-hashing every record after an edit passes all of these; a signed head does not. A line
 * `{"type":"audit-head",…}` (the first line of `wop audit export`) is the host's signature over the
 * chain's head when exported; with {@link VerifyOptions.publicKey} its signature is checked, and the
 * export's record at its seq must carry its hash and tenant (`unsigned`, `bad-signature`,
 * `head-mismatch`, `head-missing`). Records after the head's seq are checked as a chain but are not
 * covered by the signature.
 */
export function verifyAuditExport(text: string, options: VerifyOptions = {}): VerifyResult {
  const findings: AuditFinding[] = [];
  const parsed: Parsed[] = [];
  let signed: { lineNo: number; head: SignedAuditHead } | undefined;
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const headLine = asHeadLine(raw);
    if (headLine !== undefined) {
      const head = parseSignedAuditHead(headLine);
      if (typeof head === 'string')
        findings.push({ kind: 'malformed', line: i + 1, message: `line ${i + 1}: signed head: ${head}` });
      else if (signed)
        findings.push({
          kind: 'malformed',
          line: i + 1,
          message: `line ${i + 1}: a second signed head (the first is line ${signed.lineNo})`,
        });
      else signed = { lineNo: i + 1, head };
      return;
    }
    const line = parseLine(raw);
    if (typeof line === 'string')
      findings.push({ kind: 'malformed', line: i + 1, message: `line ${i + 1}: ${line}` });
    else parsed.push({ lineNo: i + 1, line });
  });

  const tenant = parsed[0]?.line.tenant;
  for (const { lineNo, line } of parsed) {
    if (line.tenant !== tenant || line.record.tenant !== line.tenant) {
      findings.push({
        kind: 'tenant-mismatch',
        seq: line.seq,
        line: lineNo,
        message: `record ${line.seq} (line ${lineNo}) is not of tenant ${String(tenant)}`,
      });
    }
    if (recordHash(line.seq, line.prev_hash, line.record) !== line.hash) {
      findings.push({
        kind: 'edited',
        seq: line.seq,
        line: lineNo,
        message: `record ${line.seq} (line ${lineNo}) was edited: its hash does not match its content`,
      });
    } else if (line.at !== line.record.at) {
      findings.push({
        kind: 'edited',
        seq: line.seq,
        line: lineNo,
        message: `record ${line.seq} (line ${lineNo}) was edited: "at" differs from the hashed record`,
      });
    }
  }

  let highest: Parsed | undefined;
  for (const p of parsed) {
    if (highest && p.line.seq < highest.line.seq) {
      findings.push({
        kind: 'reordered',
        seq: p.line.seq,
        line: p.lineNo,
        message: `record ${p.line.seq} (line ${p.lineNo}) comes after record ${highest.line.seq} (line ${highest.lineNo})`,
      });
    }
    if (!highest || p.line.seq > highest.line.seq) highest = p;
  }

  const bySeq = new Map<number, Parsed>();
  for (const p of parsed) {
    if (bySeq.has(p.line.seq)) {
      findings.push({
        kind: 'duplicate',
        seq: p.line.seq,
        line: p.lineNo,
        message: `record ${p.line.seq} appears again at line ${p.lineNo}`,
      });
    } else bySeq.set(p.line.seq, p);
  }
  const seqs = [...bySeq.keys()].sort((a, b) => a - b);
  const first = seqs[0];
  if (first !== undefined && first > 1 && !options.partial) {
    findings.push(missing(1, first - 1));
  }
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i]!;
    const { line, lineNo } = bySeq.get(seq)!;
    const before = bySeq.get(seq - 1);
    if (before) {
      if (line.prev_hash !== before.line.hash) findings.push(brokenLink(seq, lineNo, `record ${seq - 1}`));
    } else if (seq === 1) {
      if (line.prev_hash !== GENESIS_HASH) findings.push(brokenLink(seq, lineNo, 'the genesis hash'));
    } else if (i > 0) {
      findings.push(missing(seqs[i - 1]! + 1, seq - 1));
    }
  }

  const last = seqs.length > 0 ? bySeq.get(seqs[seqs.length - 1]!) : undefined;
  const head = signed ? checkHead(signed, bySeq, tenant, options.publicKey, findings) : undefined;
  if (!signed && options.publicKey)
    findings.push({
      kind: 'unsigned',
      message:
        'the export carries no signed head: nothing ties it to the host key (export it with wop audit export)',
    });
  return {
    ok: findings.length === 0,
    records: parsed.length,
    ...(tenant !== undefined ? { tenant } : {}),
    ...(first !== undefined ? { firstSeq: first } : {}),
    ...(last ? { lastSeq: last.line.seq, lastHash: last.line.hash } : {}),
    ...(head ? { head } : {}),
    findings,
  };
}

/** Checks the signed head against the key and the export's records, adding what fails to `findings`. */
function checkHead(
  signed: { lineNo: number; head: SignedAuditHead },
  bySeq: ReadonlyMap<number, Parsed>,
  tenant: string | undefined,
  publicKey: KeyObject | undefined,
  findings: AuditFinding[],
): VerifiedHead {
  const { kid, head } = signed.head;
  const read = { kid, tenant: head.tenant, seq: head.seq, hash: head.hash, signedAt: head.signedAt };
  if (!publicKey) return { ...read, verified: false };
  const before = findings.length;
  const signature = checkAuditHeadSignature(signed.head, publicKey);
  if (!signature.ok) {
    findings.push({
      kind: 'bad-signature',
      line: signed.lineNo,
      message: `the signed head (line ${signed.lineNo}): ${signature.reason}`,
    });
    return { ...read, verified: false };
  }
  if (tenant !== undefined && head.tenant !== tenant) {
    findings.push({
      kind: 'head-mismatch',
      seq: head.seq,
      message: `the signed head is of tenant ${head.tenant}, the records of tenant ${tenant}`,
    });
  }
  if (head.seq > 0) {
    const at = bySeq.get(head.seq);
    if (!at) {
      findings.push({
        kind: 'head-missing',
        seq: head.seq,
        message: `the export does not hold record ${head.seq}, the one the signed head names`,
      });
    } else if (at.line.hash !== head.hash) {
      findings.push({
        kind: 'head-mismatch',
        seq: head.seq,
        message: `record ${head.seq} (line ${at.lineNo}) has hash ${at.line.hash}, the signed head says ${head.hash}: records up to it were rewritten`,
      });
    }
  }
  return { ...read, verified: findings.length === before };
}

/** The parsed JSON of a signed-head line (`"type":"audit-head"`), else `undefined` (a record line, or not JSON). */
function asHeadLine(raw: string): unknown {
  if (!raw.includes(AUDIT_HEAD_TYPE)) return undefined;
  try {
    const v = JSON.parse(raw) as unknown;
    return typeof v === 'object' && v !== null && (v as { type?: unknown }).type === AUDIT_HEAD_TYPE
      ? v
      : undefined;
  } catch {
    return undefined;
  }
}

function missing(fromSeq: number, toSeq: number): AuditFinding {
  const which = fromSeq === toSeq ? `record ${fromSeq} is` : `records ${fromSeq}..${toSeq} are`;
  return { kind: 'missing', fromSeq, toSeq, message: `${which} missing` };
}

function brokenLink(seq: number, line: number, predecessor: string): AuditFinding {
  return {
    kind: 'broken-link',
    seq,
    line,
    message: `record ${seq} (line ${line}) does not link to ${predecessor}: its prev_hash differs (a record before it was rewritten, or this link was)`,
  };
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The line as an {@link AuditLine}, or what is wrong with it. */
function parseLine(raw: string): AuditLine | string {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return 'not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  if (typeof o.tenant !== 'string') return 'no tenant';
  if (typeof o.seq !== 'number' || !Number.isSafeInteger(o.seq) || o.seq < 1)
    return 'seq is not a positive integer';
  if (typeof o.at !== 'string') return 'no at';
  if (typeof o.record !== 'object' || o.record === null || Array.isArray(o.record))
    return 'record is not an object';
  if (typeof o.prev_hash !== 'string' || !HEX64.test(o.prev_hash)) return 'prev_hash is not 64 hex digits';
  if (typeof o.hash !== 'string' || !HEX64.test(o.hash)) return 'hash is not 64 hex digits';
  return o as unknown as AuditLine;
}
