import { Logger, Module } from '@nestjs/common';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import { ResolutionTokenRepository } from './common/resolution-token.repository';
import { loadKeyRing } from './key-ring/key-ring.loader';
import { readTokenSettings } from './key-ring/token-settings';
import { TokenRunEventsConsumer } from './mint-tokens/token-run-events.consumer';
import { InspectTokenHandler } from './token-commands/inspect-token.handler';
import { ResolveByTokenHandler } from './token-commands/resolve-by-token.handler';
import { TokenCommandsConsumer } from './token-commands/token-commands.consumer';
import { TokenVerificationService } from './token-commands/token-verification.service';
import { CLOCK, KEY_RING, systemClock, TOKEN_SETTINGS } from './token.di-tokens';

/**
 * The token service (RFC 0093): the only holder of the HMAC key ring. It mints a resolve token and
 * an inspect-only token per `interrupt.requested`, invalidates them on resolution or the run's end,
 * and serves `token.inspect` / `token.resolve` for the gateway's `/v1/interrupts/{token}`.
 * Configuration: `WOP_TOKEN_KEYS` (required in distributed mode) and `WOP_TOKEN_TTL_MS`.
 */
@Module({
  providers: [
    {
      provide: KEY_RING,
      inject: [HOST_CONFIG],
      useFactory: (config: HostConfig) => {
        const logger = new Logger('TokenKeys');
        return loadKeyRing(config, process.env, { log: (l) => logger.log(l), warn: (l) => logger.warn(l) });
      },
    },
    { provide: TOKEN_SETTINGS, useFactory: () => readTokenSettings(process.env) },
    { provide: CLOCK, useValue: systemClock },
    ResolutionTokenRepository,
    TokenVerificationService,
    InspectTokenHandler,
    ResolveByTokenHandler,
    TokenCommandsConsumer,
    TokenRunEventsConsumer,
  ],
})
export class TokenModule {}
