import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { setCredentialConnectBase } from '@openwop/engine-domain';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';

/**
 * Installs the host's public URL (`PUBLIC_URL`) as the origin of a `credential` interrupt's
 * `connectUrl` while the engine runs (RFC 0199 §C.3: host-owned, https). The gateway serves it.
 */
@Injectable()
export class CredentialConnect implements OnModuleInit, OnModuleDestroy {
  constructor(@Inject(HOST_CONFIG) private readonly config: HostConfig) {}

  onModuleInit(): void {
    setCredentialConnectBase(this.config.publicUrl);
  }

  onModuleDestroy(): void {
    setCredentialConnectBase(undefined);
  }
}
