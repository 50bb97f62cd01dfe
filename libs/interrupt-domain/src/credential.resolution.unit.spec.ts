import { CREDENTIAL_RESUME_SCHEMA } from '@openwop/contracts';
import type { InterruptEvent } from './interrupt.events';
import { given, opened, resolveWith, NOW } from './interrupt.given.spec';

// RFC 0199 §C.4, ADR 0044: the interrupt service takes `authorized` on a `credential` interrupt
// only with the gateway's attestation that a credential resolves for that very interrupt.

const credential = () =>
  opened(
    'credential',
    {
      provider: 'acme',
      scopes: ['read'],
      reason: 'missing',
      connectUrl: 'https://wop.test/oauth/connect/r1/gate',
    },
    { resumeSchema: CREDENTIAL_RESUME_SCHEMA },
  );

const resolvedWith = (resumeValue: unknown): InterruptEvent[] => [
  { type: 'interrupt.resolved', data: { resumeValue, resolvedBy: 'alice', resolvedAt: NOW } },
];

describe('interrupt decider: a credential interrupt', () => {
  it('refuses authorized without the attestation: validation_error on resumeValue, no event', () => {
    const error = given(credential())
      .when(resolveWith({ outcome: 'authorized' }))
      .thenRefuses('validation_error', {
        field: 'resumeValue',
        errors: [{ path: '/resumeValue/outcome', message: expect.stringContaining('acme') }],
      });
    expect(error.message).toContain('authorize it through connectUrl first');
  });

  it('refuses authorized attested for another interrupt (a stale snapshot of an earlier one)', () => {
    given(credential())
      .when(resolveWith({ outcome: 'authorized' }, 'alice', { credentialCheckedFor: 'r1:gate:earlier' }))
      .thenRefuses('validation_error', { field: 'resumeValue' });
  });

  it('takes authorized attested for this interrupt', () => {
    given(credential())
      .when(resolveWith({ outcome: 'authorized' }, 'alice', { credentialCheckedFor: 'r1:gate:0' }))
      .then(resolvedWith({ outcome: 'authorized' }));
  });

  it('takes declined without any attestation', () => {
    given(credential())
      .when(resolveWith({ outcome: 'declined' }))
      .then(resolvedWith({ outcome: 'declined' }));
  });

  it('checks the fixed resumeSchema first: a smuggled field is the schema refusal, attested or not', () => {
    for (const over of [{}, { credentialCheckedFor: 'r1:gate:0' }]) {
      const error = given(credential())
        .when(resolveWith({ outcome: 'authorized', token: 'x' }, 'alice', over))
        .thenRefuses('validation_error');
      expect(error.message).toContain('resumeSchema');
    }
  });

  it('leaves every other kind alone: an attestation-less authorized-looking answer to a custom interrupt resolves', () => {
    given(opened('custom', { customKind: 'x', payload: null }))
      .when(resolveWith({ outcome: 'authorized' }))
      .then(resolvedWith({ outcome: 'authorized' }));
  });
});
