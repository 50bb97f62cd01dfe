import { Logger, Module } from '@nestjs/common';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import { TokenStateRepository } from './common/token-state.repository';
import { loadKeyRing } from './key-ring/key-ring.loader';
import { readTokenSettings } from './key-ring/token-settings';
import { MintTokensHandler } from './mint-tokens/mint-tokens.handler';
import { AuthorizeTokenHandler } from './token-commands/authorize-token.handler';
import { InspectTokenHandler } from './token-commands/inspect-token.handler';
import { ResolveByTokenHandler } from './token-commands/resolve-by-token.handler';
import { TokenCommandsConsumer } from './token-commands/token-commands.consumer';
import { TokenVerificationService } from './token-commands/token-verification.service';
import { CLOCK, KEY_RING, systemClock, TOKEN_SETTINGS } from './token.di-tokens';

/**
 * The token service (RFC 0093): the only holder of the HMAC key ring. On request it mints an
 * interrupt's resolve token and inspect-only token (`token.mint`, for the run snapshot) from its
 * `interrupt.requested` event, and verifies tokens (`token.inspect`, `token.authorize`, and a previous
 * release's `token.resolve`) against the interrupt's state as the run's events leave it: resolved or
 * the run ended means spent. It keeps no table and follows no topic but its command topic (ADR 0007,
 * revised). Configuration: `WOP_TOKEN_KEYS` (required in distributed mode) and `WOP_TOKEN_TTL_MS`.
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
    TokenStateRepository,
    TokenVerificationService,
    InspectTokenHandler,
    AuthorizeTokenHandler,
    ResolveByTokenHandler,
    MintTokensHandler,
    TokenCommandsConsumer,
  ],
})
export class TokenModule {}
