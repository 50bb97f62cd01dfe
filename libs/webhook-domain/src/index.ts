export {
  newWebhookSecret,
  secretFingerprint,
  signDelivery,
  verifyDelivery,
  SIGNATURE_ALGORITHM,
  SIGNATURE_TOLERANCE_SECONDS,
} from './signature';
export {
  checkAddress,
  checkResolvedAddresses,
  checkWebhookUrl,
  deniedRange,
  ipVersion,
  parseAllowedHosts,
  type AllowedHosts,
  type EgressRefusal,
  type WebhookTarget,
} from './egress-policy';
export {
  deliveryIdOf,
  runTagsOf,
  subscriptionMatches,
  type RunScope,
  type SubscriptionFilter,
} from './subscription-filter';
export {
  breakerGate,
  breakerRecord,
  CLOSED_BREAKER,
  DEFAULT_BREAKER_POLICY,
  type BreakerGate,
  type BreakerPhase,
  type BreakerPolicy,
  type BreakerState,
  type BreakerVerdict,
} from './circuit-breaker';
export {
  BEST_EFFORT_RETRY,
  DEFAULT_DURABLE_RETRY,
  nextRetryDelayMs,
  type RetryPolicy,
} from './retry-schedule';
export {
  deliveryBody,
  deliveryHeaders,
  DeliveryHeaders,
  outcomeOfStatus,
  type AttemptOutcome,
} from './delivery-request';
