import { Injectable } from '@nestjs/common';
import type { CredentialData, ResolveInterruptCommand } from '@openwop/contracts';
import { RunReadRepository, type RunRow } from '../runs/run-read.repository';
import { scopesCover } from './oauth-client';
import { OAuthCredentialRepository } from './oauth-credential.repository';

/** The pending `credential` interrupt a run snapshot shows at `nodeId`, with the run's owner. */
export interface PendingCredential {
  readonly interruptId: string;
  readonly owner: string;
  readonly data: CredentialData;
}

/** The `credential` interrupt the snapshot of `row` shows pending at `nodeId`, if any. */
export function pendingCredentialOf(row: RunRow, nodeId: string): PendingCredential | undefined {
  const snapshot = row.snapshot as {
    owner?: { principal?: string };
    interrupt?: { interruptId?: string; nodeId?: string; kind?: string; data?: unknown };
  };
  const i = snapshot.interrupt;
  const owner = snapshot.owner?.principal;
  if (!i || i.nodeId !== nodeId || i.kind !== 'credential' || owner === undefined) return undefined;
  return { interruptId: String(i.interruptId), owner, data: i.data as CredentialData };
}

/**
 * RFC 0199 §C.4: a caller's `{outcome: "authorized"}` on a `credential` interrupt is refused `400
 * validation_error` (`details.field: "resumeValue"`) unless a credential now resolves for the run's
 * principal, the provider and the scopes. The host re-checks; it does not trust the caller.
 *
 * The interrupt service decides (ADR 0044): it takes `authorized` on a `credential` interrupt only
 * with this check's attestation, `credentialCheckedFor` naming the interrupt, which {@link attest}
 * adds to every `interrupt.resolve` the gateway sends (the command sender calls it, so every route
 * that resolves is covered). An `authorized` sent while the run snapshot does not show the
 * interrupt yet goes without it and is refused there, as is one no credential backs.
 */
@Injectable()
export class CredentialResumeCheck {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly credentials: OAuthCredentialRepository,
  ) {}

  /** Whether a credential resolves for the owner of `pending` (provider and every scope). */
  async resolves(tenant: string, pending: PendingCredential): Promise<boolean> {
    const stored = await this.credentials.find(tenant, pending.owner, pending.data.provider);
    return stored !== undefined && scopesCover(stored.scopes, pending.data.scopes ?? []);
  }

  /**
   * `command` as the gateway sends it: with `credentialCheckedFor` set to the interrupt's id when it
   * answers `authorized`, the run snapshot shows that `credential` interrupt pending at its node
   * (the same one, when the command names one) and a credential resolves for it; without the field
   * otherwise. Never keeps a `credentialCheckedFor` it did not set.
   */
  async attest(command: ResolveInterruptCommand): Promise<ResolveInterruptCommand> {
    const { credentialCheckedFor: _unchecked, ...data } = command.data;
    const plain: ResolveInterruptCommand = { ...command, data };
    const outcome = (data.resumeValue as { outcome?: unknown } | null | undefined)?.outcome;
    if (outcome !== 'authorized' || data.replayOnly === true) return plain;
    const tenant = command.actor.tenant;
    const row = await this.runs.findVisible(data.runId, tenant);
    const pending = row && pendingCredentialOf(row, data.nodeId);
    if (!pending || (data.interruptId !== undefined && data.interruptId !== pending.interruptId))
      return plain;
    if (!(await this.resolves(tenant, pending))) return plain;
    return { ...command, data: { ...data, credentialCheckedFor: pending.interruptId } };
  }
}
