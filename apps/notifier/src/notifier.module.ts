import { Module } from '@nestjs/common';
import { DeliveryWorker, hostResolverProvider, webhookSecretKeysProvider } from './delivery.worker';
import { NOTIFIER_OPTIONS, notifierOptionsFromEnv } from './notifier.options';
import { InterruptCallbacks } from './interrupt-callbacks';
import { RunEventsConsumer } from './run-events.consumer';

/**
 * The notifier: webhook deliveries of run events (webhooks.md), its own consumer group and worker,
 * and notice of interrupts to a run's `callbackUrl` (interrupt.md §Callback delivery).
 */
@Module({
  providers: [
    { provide: NOTIFIER_OPTIONS, useFactory: () => notifierOptionsFromEnv() },
    hostResolverProvider,
    webhookSecretKeysProvider,
    DeliveryWorker,
    InterruptCallbacks,
    RunEventsConsumer,
  ],
})
export class NotifierModule {}
