import { Module } from '@nestjs/common';
import { DeliveryWorker, hostResolverProvider, webhookSecretKeysProvider } from './delivery.worker';
import { NOTIFIER_OPTIONS, notifierOptionsFromEnv } from './notifier.options';
import { RunEventsConsumer } from './run-events.consumer';

/** The notifier: webhook deliveries of run events (webhooks.md), its own consumer group and worker. */
@Module({
  providers: [
    { provide: NOTIFIER_OPTIONS, useFactory: () => notifierOptionsFromEnv() },
    hostResolverProvider,
    webhookSecretKeysProvider,
    DeliveryWorker,
    RunEventsConsumer,
  ],
})
export class NotifierModule {}
