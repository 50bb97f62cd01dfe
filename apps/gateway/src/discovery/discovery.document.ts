import { advertisedLimits, conversationLimits, SEEDED_FIXTURES, type ConversationLimits } from '@openwop/contracts';
import { SCOPES } from '../auth/scopes.constants';
import { STREAM_MODES } from '../run-events/stream-mode.parser';
import { GATEWAY_ROUTES } from './gateway-routes.constants';

/** Name and version this host reports in discovery. */
export const IMPLEMENTATION = { name: 'openwop-host', version: '0.1.0' } as const;

/**
 * The `GET /.well-known/openwop` document. Capability families sit at the document root, as the
 * conformance suite reads them, and the conversation families are repeated under `capabilities`
 * (the RFC 0005 §H example's wrapper); families this host does not implement yet say so explicitly.
 * `limits` carries every bound the host enforces (`advertisedLimits`, `libs/contracts/src/limits.ts`)
 * and the roster cap; the conversation limits default to the environment's (`MAX_CONVERSATION_PARTICIPANTS`).
 */
export function buildDiscoveryDocument(limits: ConversationLimits = conversationLimits()): Record<string, unknown> {
  const conversation = {
    conversationPrimitive: limits.conversationPrimitive !== false,
    multiPartyConversation: {
      supported: limits.conversationPrimitive !== false && limits.multiParty !== false,
      maxParticipants: limits.maxParticipants,
    },
  };
  return {
    protocol: 'openwop',
    protocolVersion: '1.0',
    specVersion: '1.1',
    implementation: { ...IMPLEMENTATION },
    supportedEnvelopes: [],
    schemaVersions: {},
    limits: { ...advertisedLimits(), maxParticipants: limits.maxParticipants },
    fixtures: SEEDED_FIXTURES.map((f) => f.id),
    ...conversation,
    capabilities: {
      conversationPrimitive: conversation.conversationPrimitive,
      multiPartyConversation: { ...conversation.multiPartyConversation },
    },
    replay: { supported: true, modes: ['replay', 'branch'] },
    auth: { schemes: ['bearer'], scopes: [...SCOPES] },
    streamModes: [...STREAM_MODES],
    endpoints: GATEWAY_ROUTES.map((r) => ({ ...r })),
  };
}
