import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { lineText, type SignedAuditHead } from '@openwop/audit-chain';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { Public, RequireScope } from '../auth/require-scope.decorator';
import { createValidationPipe } from '../common/validation.pipe';
import { AuditQueryDto, DEFAULT_AUDIT_LIMIT } from './audit-query.dto';
import { AuditSigner, type AuditPublicKeyBody } from './audit-signer';
import { AuditRepository } from './audit.repository';

/** Records read from Postgres per round trip while streaming. */
const PAGE = 500;

export const AUDIT_MEDIA_TYPE = 'application/x-ndjson';

/** The response header of `GET /v1/audit` with the chain's head signed before the first page was read. */
export const AUDIT_HEAD_HEADER = 'OpenWOP-Audit-Head';

/**
 * `GET /v1/audit`: the caller's tenant's audit chain as NDJSON, one `{tenant, seq, at, record,
 * prev_hash, hash}` per line in seq order, streamed page by page (keyset on seq). `after` is the
 * last seq already held; `from`/`to` bound the decision time. `wop audit verify` checks a file of
 * these lines offline. With a signing key, the answer's `OpenWOP-Audit-Head` header is the head
 * (base64url JSON) signed before the first page was read, so every record up to it is in reach;
 * `GET /v1/audit/head` answers the same alone and `GET /v1/audit/public-key` (no credentials) the
 * key to check it with.
 */
@Controller()
export class AuditController {
  constructor(
    private readonly audit: AuditRepository,
    private readonly signer: AuditSigner,
  ) {}

  @Get('/v1/audit/head')
  @RequireScope('audit:read')
  async head(@CurrentCaller() caller: Caller): Promise<SignedAuditHead> {
    return this.signedHead(caller.tenant);
  }

  @Get('/v1/audit/public-key')
  @Public()
  publicKey(): AuditPublicKeyBody {
    return this.signer.publicKey();
  }

  @Get('/v1/audit')
  @RequireScope('audit:read')
  async export(
    @Query(createValidationPipe()) q: AuditQueryDto,
    @CurrentCaller() caller: Caller,
    @Res() res: Response,
  ): Promise<void> {
    const limit = q.limit ?? DEFAULT_AUDIT_LIMIT;
    let after = q.after ?? 0;
    let sent = 0;
    // The head first: every record it names is committed, so a full export holds it.
    const head = this.signer.enabled ? await this.signedHead(caller.tenant) : undefined;
    // The first page is read before the status is sent: a failing read is still the error envelope.
    let lines = await this.audit.page(caller.tenant, { after, limit: Math.min(PAGE, limit), ...window(q) });
    res.status(200).set({
      'Content-Type': AUDIT_MEDIA_TYPE,
      'Cache-Control': 'no-store',
      ...(head ? { [AUDIT_HEAD_HEADER]: Buffer.from(JSON.stringify(head)).toString('base64url') } : {}),
    });
    for (;;) {
      if (lines.length > 0) res.write(`${lines.map(lineText).join('\n')}\n`);
      sent += lines.length;
      if (lines.length < PAGE || sent >= limit) break;
      after = lines[lines.length - 1]!.seq;
      lines = await this.audit.page(caller.tenant, {
        after,
        limit: Math.min(PAGE, limit - sent),
        ...window(q),
      });
    }
    res.end();
  }

  private async signedHead(tenant: string): Promise<SignedAuditHead> {
    const { seq, hash } = await this.audit.head(tenant);
    return this.signer.sign({ tenant, seq, hash });
  }
}

function window(q: AuditQueryDto): { from?: Date; to?: Date } {
  return { ...(q.from !== undefined ? { from: q.from } : {}), ...(q.to !== undefined ? { to: q.to } : {}) };
}
