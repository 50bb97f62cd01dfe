import { DomainError } from '@openwop/kernel';
import type { InterruptFacts } from './interrupt.commands';
import { isJsonObject } from './json-value.util';

/**
 * RFC 0199 §C.4: `{outcome: "authorized"}` on a `credential` interrupt is refused unless a
 * credential now resolves for the run's principal, the provider and the scopes. The credentials
 * live in the gateway's tables, so the gateway checks; the interrupt service, which decides, takes
 * `authorized` only with the gateway's attestation for this very interrupt (`credentialCheckedFor`,
 * ADR 0044). Without it (the gateway could not see the interrupt yet, or found no credential, or
 * another service sent the command) the answer is refused and nothing changes; the caller answers
 * again once the credential resolves. `declined`, and every other kind, need no attestation.
 *
 * @throws {@link CredentialNotResolved}
 */
export function assertCredentialAttested(
  interrupt: InterruptFacts,
  resumeValue: unknown,
  credentialCheckedFor: string | undefined,
): void {
  if (interrupt.kind !== 'credential') return;
  if (!isJsonObject(resumeValue) || resumeValue.outcome !== 'authorized') return;
  if (credentialCheckedFor === interrupt.interruptId) return;
  const provider = isJsonObject(interrupt.data) ? String(interrupt.data.provider) : 'the provider';
  throw new CredentialNotResolved(interrupt.interruptId, provider);
}

/**
 * `authorized` without a credential the host found resolving: `400 validation_error` on
 * `resumeValue`, the envelope the gateway's own check gives.
 */
export class CredentialNotResolved extends DomainError {
  constructor(interruptId: string, provider: string) {
    const message = `no credential for ${provider} resolves for the run's principal yet; authorize it through connectUrl first`;
    super('validation_error', `resumeValue is refused: ${message}.`, {
      field: 'resumeValue',
      interruptId,
      errors: [{ path: '/resumeValue/outcome', message }],
    });
  }
}
