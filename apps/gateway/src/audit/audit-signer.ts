import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AUDIT_SIGNING_KEY_ENV,
  loadAuditSigningKey,
  rawPublicKey,
  signAuditHead,
  type AuditHead,
  type AuditSigningKey,
  type SignedAuditHead,
} from '@openwop/audit-chain';
import { registerSecret } from '@openwop/observability';
import { HOST_CONFIG, readOrCreateKeyFile, type HostConfig } from '@openwop/platform-nest';
import { ApiError } from '../common/api.error';

/** `GET /v1/audit/public-key`: the key an auditor checks signed heads with. */
export interface AuditPublicKeyBody {
  readonly alg: 'Ed25519';
  readonly kid: string;
  /** The 32 raw bytes, base64url: what `wop audit verify --public-key` takes. */
  readonly publicKey: string;
  /** The same key as an SPKI PEM. */
  readonly pem: string;
}

/**
 * Signs a tenant chain's head with the host's audit key (ADR 0032, signed heads): the operator's
 * `OPENWOP_AUDIT_SIGNING_KEY`, or the embedded host's generated key file. Without a key (distributed
 * mode without the variable) nothing is signed and the head and key routes are `404 not_found`: the
 * host, as configured, has no signed heads (not a passing outage, which a 503 would say).
 */
@Injectable()
export class AuditSigner {
  private readonly key: AuditSigningKey | undefined;

  constructor(@Inject(HOST_CONFIG) config: HostConfig) {
    const logger = new Logger('Audit');
    const loaded = loadAuditSigningKey(config, process.env, readOrCreateKeyFile);
    this.key = loaded.key;
    if (loaded.key) {
      const privateDer = loaded.key.privateKey.export({ type: 'pkcs8', format: 'der' });
      const seed = privateDer.subarray(privateDer.length - 32);
      registerSecret(
        ...[seed.toString('base64'), seed.toString('base64url'), seed.toString('hex')],
        ...loaded.key.privateKey
          .export({ type: 'pkcs8', format: 'pem' })
          .toString()
          .split('\n')
          .filter((l) => !l.startsWith('-----')),
      );
      logger.log(`audit heads signed with Ed25519 key ${loaded.key.kid} from ${loaded.from}`);
    } else {
      logger.warn(`${loaded.from}: audit heads are not signed (GET /v1/audit/head answers 404) until it is`);
    }
  }

  /** Whether heads are signed here. */
  get enabled(): boolean {
    return this.key !== undefined;
  }

  /** `head` signed now. @throws ApiError `not_found` without a key. */
  sign(head: Omit<AuditHead, 'signedAt'>, now = new Date()): SignedAuditHead {
    return signAuditHead({ ...head, signedAt: now.toISOString() }, this.requireKey());
  }

  /** @throws ApiError `not_found` without a key. */
  publicKey(): AuditPublicKeyBody {
    const key = this.requireKey();
    return {
      alg: 'Ed25519',
      kid: key.kid,
      publicKey: rawPublicKey(key.publicKey),
      pem: key.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
  }

  private requireKey(): AuditSigningKey {
    if (!this.key)
      throw new ApiError(
        'not_found',
        `This host does not sign audit heads: signed heads need ${AUDIT_SIGNING_KEY_ENV} (the host's Ed25519 audit key) on this host.`,
        {
          reason: 'audit_signing_key_missing',
        },
      );
    return this.key;
  }
}
