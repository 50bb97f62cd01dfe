import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { auditPublicKeyFrom, verifyAuditExport } from '@openwop/audit-chain';
import { OpenWopApiError, OpenWopValidationError } from '@openwop/sdk';
import type { CliContext } from '../cli.context';
import { option } from '../util/args.parser';
import { ExitCode, UsageError, type ExitCodeValue } from '../util/exit-codes';

/** Records asked for per request while exporting (the route's maximum). */
const EXPORT_PAGE = 10_000;

/** `wop audit verify <file> [--partial] [--public-key K]` | `wop audit export [--from T] [--to T] [--after N]`. */
export async function auditCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const [, sub, file, extra] = ctx.args.positionals;
  if (sub === 'verify') {
    if (!file || extra !== undefined) throw new UsageError('wop audit verify takes one file');
    return verify(ctx, file);
  }
  if (sub === 'export') {
    if (file !== undefined)
      throw new UsageError(
        'wop audit export takes no file: it writes to stdout (wop audit export > audit.ndjson)',
      );
    return exportAudit(ctx);
  }
  throw new UsageError('wop audit verify <file> | wop audit export');
}

/**
 * Checks an export offline (nothing is sent): each finding on stderr (and as a record under
 * `--json`), a summary line, exit 0 when the chain holds and 1 when anything was found. With
 * `--public-key` the export's signed head must verify under that key and match the records.
 */
async function verify(ctx: CliContext, file: string): Promise<ExitCodeValue> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const keyOption = option(ctx.args, 'public-key');
  const publicKey = keyOption === undefined ? undefined : await publicKeyOf(keyOption);
  const result = verifyAuditExport(text, {
    partial: ctx.args.flags.has('partial'),
    ...(publicKey ? { publicKey } : {}),
  });
  for (const finding of result.findings) {
    ctx.out.error(`${finding.kind}: ${finding.message}`);
    ctx.out.record({ type: 'finding', ...finding });
  }
  const extent =
    result.records > 0
      ? ` (seq ${result.firstSeq}..${result.lastSeq}, tenant ${result.tenant}, last hash ${result.lastHash})`
      : '';
  if (result.ok) ctx.out.line(`ok: ${result.records} records verify${extent}`);
  else ctx.out.line(`FAILED: ${result.findings.length} finding(s) in ${result.records} records${extent}`);
  const head = result.head;
  if (head?.verified) {
    const beyond =
      result.lastSeq !== undefined && result.lastSeq > head.seq
        ? `; records ${head.seq + 1}..${result.lastSeq} are after it, not covered`
        : '';
    ctx.out.line(
      `signed head: seq ${head.seq} of tenant ${head.tenant}, key ${head.kid}, signed ${head.signedAt}: verified${beyond}`,
    );
  } else if (head && !publicKey) {
    ctx.out.line(
      `signed head: seq ${head.seq}, key ${head.kid}: not checked (give --public-key, from GET /v1/audit/public-key)`,
    );
  }
  ctx.out.record({
    type: 'audit-verify',
    ok: result.ok,
    records: result.records,
    ...(result.firstSeq !== undefined
      ? { firstSeq: result.firstSeq, lastSeq: result.lastSeq, lastHash: result.lastHash }
      : {}),
    ...(head ? { head } : {}),
  });
  return result.ok ? ExitCode.ok : ExitCode.verifyFailed;
}

/** The key `--public-key` names: the key itself (base64, base64url or PEM), or a file holding it. */
async function publicKeyOf(value: string): Promise<KeyObject> {
  let text = value;
  if (!value.startsWith('-----BEGIN') && !/^[A-Za-z0-9+/_-]{43}=?$/.test(value.trim())) {
    try {
      text = await readFile(value, 'utf8');
    } catch (e) {
      throw new UsageError(`--public-key: neither a key nor a readable file: ${(e as Error).message}`);
    }
  }
  try {
    return auditPublicKeyFrom(text);
  } catch (e) {
    throw new UsageError(`--public-key: ${(e as Error).message}`);
  }
}

/**
 * Writes the tenant's whole audit chain (or the asked window) to stdout as NDJSON, page after page.
 * The first line is the chain's head signed by the host (`GET /v1/audit/head`), fetched before the
 * first page so the export holds the record it names; a host without a signing key (`503`) gets an
 * export without it and a note on stderr.
 */
async function exportAudit(ctx: CliContext): Promise<ExitCodeValue> {
  const conn = ctx.connection();
  const afterOption = option(ctx.args, 'after');
  let after = afterOption === undefined ? 0 : Number(afterOption);
  if (!Number.isSafeInteger(after) || after < 0)
    throw new UsageError('--after takes a seq (an integer, 0 or more)');
  const window = new URLSearchParams();
  for (const name of ['from', 'to'] as const) {
    const value = option(ctx.args, name);
    if (value !== undefined) window.set(name, value);
  }
  const base = conn.url.replace(/\/$/, '');
  const headers = conn.apiKey ? { authorization: `Bearer ${conn.apiKey}` } : {};
  const head = await fetch(`${base}/v1/audit/head`, { headers: { accept: 'application/json', ...headers } });
  const headBody = await head.text();
  if (head.ok) ctx.io.stdout.write(`${JSON.stringify(JSON.parse(headBody))}\n`);
  else if (head.status === 503 || head.status === 404)
    ctx.out.warn(`the export is not signed (${head.status} from GET /v1/audit/head)`);
  else throw apiError(head.status, headBody);
  for (;;) {
    const query = new URLSearchParams(window);
    query.set('after', String(after));
    query.set('limit', String(EXPORT_PAGE));
    const res = await fetch(`${base}/v1/audit?${query.toString()}`, {
      headers: { accept: 'application/x-ndjson', ...headers },
    });
    const body = await res.text();
    if (!res.ok) throw apiError(res.status, body);
    const lines = body.split('\n').filter((l) => l.trim() !== '');
    if (lines.length > 0) ctx.io.stdout.write(`${lines.join('\n')}\n`);
    if (lines.length < EXPORT_PAGE) return ExitCode.ok;
    after = (JSON.parse(lines[lines.length - 1]!) as { seq: number }).seq;
  }
}

function apiError(status: number, body: string): OpenWopApiError {
  let envelope: { error?: unknown; message?: unknown; details?: Record<string, unknown> } = {};
  try {
    envelope = JSON.parse(body) as typeof envelope;
  } catch {
    // Not the error envelope: the status says enough.
  }
  const code = typeof envelope.error === 'string' ? envelope.error : 'http_error';
  const message = typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`;
  const Err = status === 400 ? OpenWopValidationError : OpenWopApiError;
  return new Err(status, code, message, envelope.details);
}
