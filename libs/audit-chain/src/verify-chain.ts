import { recordHash } from './audit-chain';
import { GENESIS_HASH, type AuditLine } from './audit-record';

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
    };

export interface VerifyOptions {
  /**
   * The export starts after the chain's start (`GET /v1/audit?after=N` or `from=`): its first
   * record's link is taken as given. Otherwise the chain must start at seq 1 on the genesis hash.
   */
  readonly partial?: boolean;
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly records: number;
  readonly tenant?: string;
  readonly firstSeq?: number;
  readonly lastSeq?: number;
  /** The hash of the last record: compare it with the host's head to detect a cut-off tail. */
  readonly lastHash?: string;
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
 */
export function verifyAuditExport(text: string, options: VerifyOptions = {}): VerifyResult {
  const findings: AuditFinding[] = [];
  const parsed: Parsed[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
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
  return {
    ok: findings.length === 0,
    records: parsed.length,
    ...(tenant !== undefined ? { tenant } : {}),
    ...(first !== undefined ? { firstSeq: first } : {}),
    ...(last ? { lastSeq: last.line.seq, lastHash: last.line.hash } : {}),
    findings,
  };
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
