import { AdminPageController } from './admin/admin-page.controller';
import { AuditController } from './audit/audit.controller';
import { AuditSigner } from './audit/audit-signer';
import { AuditRepository } from './audit/audit.repository';
import { LinkPageController } from './link-page/link-page.controller';
import { TokenLinkReadRepository } from './interrupt-tokens/token-link-read.repository';
import { BulkCancelRunsController } from './bulk-cancel-runs/bulk-cancel-runs.controller';
import { BulkDecideInterruptsController } from './bulk-decide-interrupts/bulk-decide-interrupts.controller';
import { CancelRunController } from './cancel-run/cancel-run.controller';
import { PauseRunController } from './pause-run/pause-run.controller';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { CommandSender } from './commands/command.sender';
import { ListInterruptsController } from './list-interrupts/list-interrupts.controller';
import { ListRunsController } from './list-runs/list-runs.controller';
import {
  ClaimInterruptController,
  ClaimInterruptHandler,
} from './claim-interrupt/claim-interrupt.controller';
import { ResolveInterruptController } from './resolve-interrupt/resolve-interrupt.controller';
import { ResolveInterruptHandler } from './resolve-interrupt/resolve-interrupt.handler';
import { WorkflowsController } from './workflows/workflows.controller';
import { WebhookDeliveriesController } from './webhooks/webhook-deliveries.controller';
import { WebhookEgressCheck } from './webhooks/webhook-egress.check';
import { WebhookRepository } from './webhooks/webhook.repository';
import { WebhookSecretSealer } from './webhooks/webhook-secret.sealer';
import { WebhooksController } from './webhooks/webhooks.controller';
import { MultiPartySeamController } from './host-sample/multi-party-seam.controller';
import { MultiPartySeamHandler } from './host-sample/multi-party-seam.handler';
import { multiPartySeamEnabled } from './host-sample/test-seams.config';
import { Logger, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import { createApiKeyRegistry } from './auth/api-key-registry.factory';
import { ApiKeyGuard } from './auth/api-key.guard';
import { CreateRunController } from './create-run/create-run.controller';
import { CreateRunHandler } from './create-run/create-run.handler';
import { DiscoveryController } from './discovery/discovery.controller';
import { ForkRunController } from './fork-run/fork-run.controller';
import { ForkRunHandler } from './fork-run/fork-run.handler';
import { ApiReferenceController } from './discovery/api-reference.controller';
import { OpenApiController } from './discovery/openapi.controller';
import { API_KEY_REGISTRY } from './gateway.di-tokens';
import { GetRunController } from './get-run/get-run.controller';
import { GetArtifactController } from './get-artifact/get-artifact.controller';
import { ArtifactReadRepository } from './get-artifact/artifact-read.repository';
import { GatewayObservabilityModule } from './observability/gateway-observability.module';
import { ConversationReadRepository } from './conversations/conversation-read.repository';
import { GetConversationController } from './get-conversation/get-conversation.controller';
import { ListConversationsController } from './list-conversations/list-conversations.controller';
import { HealthController } from './health/health.controller';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { InterruptTokenHandler } from './interrupt-tokens/interrupt-token.handler';
import { InterruptTokensController } from './interrupt-tokens/interrupt-tokens.controller';
import { InterruptTokenPresenter } from './interrupt-tokens/interrupt-token.presenter';
import { PollRunEventsController } from './poll-run-events/poll-run-events.controller';
import { RunEventStreamer } from './run-events/run-event.streamer';
import { RunEventsController } from './run-events/run-events.controller';
import { RunEventsReader } from './run-events/run-events.reader';
import { RunReadRepository } from './runs/run-read.repository';
import { ShutdownSignal } from './runs/shutdown-signal.service';
import { CredentialResumeCheck } from './oauth-connect/credential-resume.check';
import { OAuthConnectController } from './oauth-connect/oauth-connect.controller';
import { OAuthConnectHandler } from './oauth-connect/oauth-connect.handler';
import { OAuthCredentialRepository } from './oauth-connect/oauth-credential.repository';
import { oauthProvidersProvider } from './oauth-connect/oauth-providers.provider';

/**
 * The gateway: the only HTTP edge (OpenWOP REST + SSE, discovery, health). It takes the bus, the
 * data source, the run-event feed and the host config from the global `PlatformModule`; every
 * route needs an API key unless marked public. Pair it with {@link configureGatewayApp}.
 *
 * @example
 * ```ts
 * const app = await NestFactory.create<NestExpressApplication>(
 *   { module: class Host {}, imports: [PlatformModule.forRoot(platform), GatewayModule] } as never,
 * );
 * configureGatewayApp(app);
 * await app.listen(config.port, config.host);
 * ```
 */
@Module({
  imports: [GatewayObservabilityModule],
  controllers: [
    HealthController,
    DiscoveryController,
    OpenApiController,
    ApiReferenceController,
    CreateRunController,
    GetRunController,
    GetArtifactController,
    ListConversationsController,
    GetConversationController,
    RunEventsController,
    PollRunEventsController,
    // Before the resolve route, whose `{nodeId}` would take `gate:claim`.
    ClaimInterruptController,
    ResolveInterruptController,
    CancelRunController,
    BulkCancelRunsController,
    BulkDecideInterruptsController,
    ListInterruptsController,
    ListRunsController,
    WorkflowsController,
    WebhooksController,
    WebhookDeliveriesController,
    AuditController,
    InterruptTokensController,
    ForkRunController,
    PauseRunController,
    AdminPageController,
    LinkPageController,
    OAuthConnectController,
    // Conformance-only (host-sample-test-seams.md): mounted only under OPENWOP_TEST_SEAM_ENABLED=true.
    ...(multiPartySeamEnabled() ? [MultiPartySeamController] : []),
  ],
  providers: [
    {
      provide: API_KEY_REGISTRY,
      inject: [HOST_CONFIG],
      useFactory: (config: HostConfig) => {
        const logger = new Logger('Gateway');
        return createApiKeyRegistry(config, process.env, {
          log: (l) => logger.log(l),
          warn: (l) => logger.warn(l),
        });
      },
    },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    // After the guard (the tenant is known), around every mutating route: Idempotency-Key records.
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
    RunReadRepository,
    ArtifactReadRepository,
    ConversationReadRepository,
    CommandSender,
    ResolveInterruptHandler,
    ClaimInterruptHandler,
    RunEventsReader,
    RunEventStreamer,
    CreateRunHandler,
    ShutdownSignal,
    InterruptTokenPresenter,
    InterruptTokenHandler,
    TokenLinkReadRepository,
    ForkRunHandler,
    WebhookRepository,
    WebhookEgressCheck,
    WebhookSecretSealer,
    AuditRepository,
    AuditSigner,
    CancelRunHandler,
    MultiPartySeamHandler,
    oauthProvidersProvider,
    OAuthCredentialRepository,
    CredentialResumeCheck,
    OAuthConnectHandler,
  ],
  exports: [API_KEY_REGISTRY],
})
export class GatewayModule {}
