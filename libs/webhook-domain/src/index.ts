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
  ALLOW_HOSTS_HINT,
  deniedRange,
  ipVersion,
  parseAllowedHosts,
  type AllowedHosts,
  type EgressRefusal,
  type WebhookTarget,
} from './egress-policy';
export {
  DENIED_IPV4_BLOCKS,
  DENIED_IPV6_BLOCKS,
  NAT64_WELL_KNOWN,
  type DeniedBlock,
} from './special-purpose-addresses';
export {
  DEFAULT_MAX_WEBHOOKS_PER_TENANT,
  MAX_WEBHOOKS_PER_TENANT_ENV,
  maxWebhooksPerTenant,
} from './subscription-limit';
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
  OpenWopDeliveryHeaders,
  outcomeOfStatus,
  type AttemptOutcome,
} from './delivery-request';
export {
  describeWebhookKeyRing,
  embeddedWebhookKeyFile,
  generateWebhookSecretKeys,
  isSealedSecret,
  keyFingerprint,
  keyRingEncodings,
  loadWebhookSecretKeys,
  needsReseal,
  openWebhookSecret,
  parseWebhookSecretKeys,
  sealWebhookSecret,
  SEALED_SECRET_VERSION,
  WEBHOOK_SECRET_KEYS_ENV,
  WebhookSecretUnreadable,
  type LoadedWebhookKeyRing,
  type OpenedSecret,
  type SecretBinding,
  type WebhookKeyRingSource,
  type WebhookSecretKeyRing,
} from './secret-box';
export { DEFAULT_RETENTION, type RetentionPolicy } from './retention';
export {
  DEFAULT_SECRET_ROTATION_OVERLAP_SECONDS,
  previousSecretInOverlap,
  rotatedSecret,
  SECRET_ROTATION_OVERLAP_ENV,
  secretRotationOverlapSeconds,
} from './secret-rotation';
export {
  checkSignatureAlgorithms,
  newStandardWebhooksSecret,
  newVerificationChallenge,
  SIGNATURE_ALGORITHMS,
  signStandardWebhooks,
  STANDARD_WEBHOOKS_ALGORITHM,
  StandardWebhooksHeaders,
  standardWebhooksHeaders,
  standardWebhooksKey,
  verificationAnswered,
  verificationBody,
  verifyStandardWebhooks,
  WEBHOOK_MESSAGE_ID_PATTERN,
  type SignatureAlgorithmsCheck,
} from './standard-webhooks';
