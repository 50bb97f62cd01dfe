export { NotifierModule } from './notifier.module';
export { deliverPinned, type PinnedDelivery } from './webhook-http.client';
export { notifierOptionsFromEnv, type NotifierOptions } from './notifier.options';
