import { AUDIT_ROUTES } from '@openwop/audit-chain';
import {
  advertisedLimits,
  APPROVAL_RESOLVE_ACTIONS,
  conversationLimits,
  FORK_MODES,
  V1_INTERRUPT_KINDS,
  MAX_BULK_DECISION_ITEMS,
  MAX_DELAY_MS,
  PAUSE_DRAIN_POLICIES,
  SEEDED_FIXTURES,
  type ConversationLimits,
} from '@openwop/contracts';
import { IDEMPOTENCY_RETENTION_MS } from '@openwop/platform-db';
import { maxWebhooksPerTenant, SIGNATURE_ALGORITHMS } from '@openwop/webhook-domain';
import { HOST_SCOPES, SCOPES } from '../auth/scopes.constants';
import { MAX_BULK_CANCEL_RUN_IDS } from '../bulk-cancel-runs/bulk-cancel-runs.request.dto';
import { STREAM_MODES } from '../run-events/stream-mode.parser';
import { GATEWAY_ROUTES, type GatewayRoute } from './gateway-routes.constants';

/** Name and version this host reports in discovery. */
export const IMPLEMENTATION = { name: 'openwop-host', version: '0.1.0' } as const;

/**
 * The envelope types this host recognizes (`supportedEnvelopes`). `clarification.request` is the
 * canonical interrupt envelope (profiles.md §openwop-interrupts): a clarification gate suspends the
 * run with it and resumes with the answer. No node of this host emits AI envelopes of its own
 * (`prd.create` and the like), so the list holds only that one.
 */
export const SUPPORTED_ENVELOPES = ['clarification.request'] as const;

/**
 * `limits` of capabilities.schema.json, a closed object: the three base engine limits plus the
 * optional `maxNodeExecutions` and `maxRequestBodyBytes`, every one enforced. The host's other intake
 * bounds (JSON depth, workflow size, timeouts, …) are listed under `extensions.limits`, where a
 * schema-validating client does not reject the document for them.
 */
const SPEC_LIMIT_KEYS = [
  'clarificationRounds',
  'schemaRounds',
  'envelopesPerTurn',
  'maxNodeExecutions',
  'maxRequestBodyBytes',
] as const;

function specLimits(all: Record<string, number>): Record<string, number> {
  return Object.fromEntries(SPEC_LIMIT_KEYS.map((k) => [k, all[k]!]));
}

/**
 * The `GET /.well-known/openwop` document (capabilities.md, `capabilities.schema.json`). Every
 * capability family sits at the document root, as RFC 0073 requires and the conformance suite reads;
 * the conversation families are mirrored under the deprecated `capabilities` wrapper for older
 * clients. Each family is advertised only for behaviour the host has:
 * - `agents` (phase 1): `agent.decided` with a confidence below the run's threshold suspends the
 *   node `low-confidence`; the host emits no reasoning traces (`reasoning.verbosity: off`);
 * - `conversationPrimitive` / `multiPartyConversation` from the environment's switches;
 * - `replay` (`:fork` in both modes), `runs.pauseResume`, `idempotency` (Postgres records, 24 h);
 * - `extensions` holds what the schema has no family for: interrupt kinds, signed resolution
 *   tokens, durable timers, bulk cancel, and every intake bound.
 * `endpoints` are the routes served: a test seam (host-sample-test-seams.md) only while it is on; the
 * multi-party seam's advertising flag is `multiPartyConversation.supported` itself.
 */
export function buildDiscoveryDocument(
  limits: ConversationLimits = conversationLimits(),
  routes: readonly GatewayRoute[] = GATEWAY_ROUTES,
  maxWebhookSubscriptionsPerTenant: number = maxWebhooksPerTenant(),
): Record<string, unknown> {
  const conversation = {
    conversationPrimitive: limits.conversationPrimitive !== false,
    multiPartyConversation: {
      supported: limits.conversationPrimitive !== false && limits.multiParty !== false,
      maxParticipants: limits.maxParticipants,
    },
  };
  const hostLimits = {
    ...advertisedLimits(),
    maxParticipants: limits.maxParticipants,
    maxWebhookSubscriptionsPerTenant,
  };
  const retentionSeconds = Math.floor(IDEMPOTENCY_RETENTION_MS / 1000);
  return {
    protocol: 'openwop',
    protocolVersion: '1.0',
    specVersion: '1.1',
    implementation: { ...IMPLEMENTATION },
    supportedTransports: ['rest'],
    supportedEnvelopes: [...SUPPORTED_ENVELOPES],
    schemaVersions: Object.fromEntries(SUPPORTED_ENVELOPES.map((e) => [e, 1])),
    limits: specLimits(hostLimits),
    fixtures: SEEDED_FIXTURES.map((f) => f.id),
    agents: {
      supported: true,
      profile: 'wop-agents-phase-1-skeleton',
      reasoning: { verbosity: 'off' },
    },
    ...conversation,
    capabilities: {
      conversationPrimitive: conversation.conversationPrimitive,
      multiPartyConversation: { ...conversation.multiPartyConversation },
    },
    replay: { supported: true, modes: [...FORK_MODES] },
    runs: { pauseResume: { supported: true, drainPolicies: [...PAUSE_DRAIN_POLICIES] } },
    idempotency: { supported: true, layer1RetentionSeconds: retentionSeconds, crossRegion: 'single-region' },
    auth: { schemes: ['bearer'], scopes: [...SCOPES, ...HOST_SCOPES] },
    // webhooks.md: signed deliveries by the notifier service; RFC 0083 durable mode per subscription (`durable: true`);
    // `standard-webhooks-1` on opt-in (RFC 0201). No `secretRotation`: rotation is not built.
    webhooks: { supported: true, durable: true, signatureAlgorithms: [...SIGNATURE_ALGORITHMS] },
    streamModes: [...STREAM_MODES],
    endpoints: routes.map((r) => ({
      method: r.method,
      path: r.path,
      ...(r.scope ? { scope: r.scope } : {}),
    })),
    extensions: {
      interrupts: {
        kinds: [...V1_INTERRUPT_KINDS],
        // The answer's vocabulary (interrupt.md §ApprovalResume): `edit-accept`; a gate's config may still list `edit`.
        approvalActions: [...APPROVAL_RESOLVE_ACTIONS],
        quorum: true,
        durableTimeouts: true,
        // interrupt-profiles.md §Discovery guidance; each is seeded as its conformance fixture (ADR 0025).
        profiles: [
          'openwop-interrupt-quorum',
          'openwop-interrupt-auth-required',
          'openwop-interrupt-external-event',
          'openwop-interrupt-cascade-cancel',
        ],
        signedCallbackTokens: true,
        // interrupt.md §Callback delivery: `createRun.callbackUrl` passes the webhook egress guard at
        // create and at every delivery; one unsigned POST of notice per interrupt, no redirects.
        callbackDelivery: { supported: true, attempts: 1, signed: false, followsRedirects: false },
      },
      resolutionTokens: { supported: true, inspect: true, singleUse: true, keyRotation: true },
      durableTimers: { supported: true, nodeType: 'core.delay', maxDelayMs: MAX_DELAY_MS },
      bulkCancel: { supported: true, maxRunIds: MAX_BULK_CANCEL_RUN_IDS },
      bulkDecisions: {
        supported: true,
        maxItems: MAX_BULK_DECISION_ITEMS,
        selection: ['items', 'filter'],
        perItemResults: true,
      },
      webhooks: {
        durableOptIn: 'per-subscription',
        circuitBreaker: { consecutiveFailures: 4, cooldownSeconds: 3600, failedAfterFailuresIn7Days: 100 },
        deliveryTimeoutMs: 5000,
        egress: { revalidatedAtDelivery: true, pinnedResolution: true, followsRedirects: false },
        deadLetters: {
          list: 'GET /v1/webhook-deliveries?status=dead',
          replay: 'POST /v1/webhook-deliveries/{deliveryId}:replay',
        },
      },
      // The decisions' hash chain per tenant (ADR 0032): exported as NDJSON, verified offline.
      audit: {
        supported: true,
        export: 'GET /v1/audit',
        scope: 'audit:read',
        format: 'application/x-ndjson',
        chain: {
          hash: 'sha-256',
          canonicalization: 'json-sorted-keys',
          scope: 'tenant',
          genesis: '0'.repeat(64),
        },
        routes: [...AUDIT_ROUTES],
        verify: 'wop audit verify <file>',
        // A head signed with the host's key (ADR 0032): an export re-hashed after an edit no longer matches it.
        signedHead: {
          alg: 'Ed25519',
          head: 'GET /v1/audit/head',
          publicKey: 'GET /v1/audit/public-key',
          verify: 'wop audit verify <file> --public-key <key>',
        },
      },
      limits: hostLimits,
    },
  };
}
