/** Environment variable holding the largest participant roster a conversation may declare (RFC 0101). */
export const MAX_CONVERSATION_PARTICIPANTS_ENV = 'MAX_CONVERSATION_PARTICIPANTS';

/** Roster size limit when the environment sets none. */
export const DEFAULT_MAX_CONVERSATION_PARTICIPANTS = 8;

/** Host limits on conversations, shared by the engine (enforcement) and the gateway (discovery). */
export interface ConversationLimits {
  /** Largest `participants` roster; advertised as `multiPartyConversation.maxParticipants` (≥ 2). */
  readonly maxParticipants: number;
  /** `capabilities.conversationPrimitive` (RFC 0005); `OPENWOP_CONVERSATIONS=off` turns it off. */
  readonly conversationPrimitive?: boolean;
  /** `multiPartyConversation.supported` (RFC 0101); `OPENWOP_MULTI_PARTY=off` turns it off. */
  readonly multiParty?: boolean;
}

const OFF = /^(off|false|0|no)$/i;

/**
 * Reads the conversation limits from `env` (`MAX_CONVERSATION_PARTICIPANTS`, default 8).
 *
 * @throws Error when the variable is set but is not an integer ≥ 2 (the capability's minimum),
 *   so a misconfigured host fails at start instead of advertising a limit it cannot honour.
 */
export function conversationLimits(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConversationLimits {
  const switches = {
    conversationPrimitive: !OFF.test(env.OPENWOP_CONVERSATIONS?.trim() ?? ''),
    multiParty: !OFF.test(env.OPENWOP_MULTI_PARTY?.trim() ?? ''),
  };
  const raw = env[MAX_CONVERSATION_PARTICIPANTS_ENV]?.trim();
  if (raw === undefined || raw === '')
    return { maxParticipants: DEFAULT_MAX_CONVERSATION_PARTICIPANTS, ...switches };
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 2) {
    throw new Error(`${MAX_CONVERSATION_PARTICIPANTS_ENV} must be an integer >= 2, got '${raw}'`);
  }
  return { maxParticipants: Number(raw), ...switches };
}

/** The node types that hold a conversation (gated by `conversationPrimitive`). */
export const CONVERSATION_NODE_TYPES: readonly string[] = [
  'core.conversationGate',
  'agent.conversation',
  'agent.dialogue',
  'agent.council',
];

/** A refusal of a workflow this host's conversation capabilities cannot run (registration and run creation). */
export interface CapabilityRefusal {
  readonly code: 'capability_required' | 'validation_error';
  readonly message: string;
  readonly details: Record<string, unknown>;
}

/**
 * The spec's refusal of a definition that needs a conversation capability this host has off
 * (`capability_required` with `requiredCapability`, rest-endpoints.md) or a roster over
 * `maxParticipants` (`validation_error`, RFC 0101 §Spec 4 through RFC 0005 §E; `details.reason` is
 * `conversation_roster_exceeded` and `details.maxParticipants` names the cap), or undefined when it may run.
 */
export function conversationRefusal(
  definition: {
    readonly nodes?: readonly {
      readonly id: string;
      readonly typeId: string;
      readonly config?: Record<string, unknown>;
    }[];
  },
  limits: ConversationLimits = conversationLimits(),
): CapabilityRefusal | undefined {
  for (const [index, node] of (definition.nodes ?? []).entries()) {
    if (!CONVERSATION_NODE_TYPES.includes(node.typeId)) continue;
    const where = { offendingTypeId: node.typeId, nodeId: node.id };
    if (limits.conversationPrimitive === false) {
      return {
        code: 'capability_required',
        message: `node ${node.id} (${node.typeId}) needs conversations, which this host has turned off; use clarification interrupts for multi-turn flows`,
        details: { requiredCapability: 'conversationPrimitive', ...where },
      };
    }
    const roster = node.config?.participants;
    if (!Array.isArray(roster)) continue;
    if (limits.multiParty === false) {
      return {
        code: 'capability_required',
        message: `node ${node.id} declares a participant roster; multi-party conversations are turned off on this host`,
        details: { requiredCapability: 'multiPartyConversation', ...where },
      };
    }
    if (roster.length > limits.maxParticipants) {
      const message = `has ${roster.length} members; this host allows at most ${limits.maxParticipants} (multiPartyConversation.maxParticipants)`;
      return {
        code: 'validation_error',
        message: `node ${node.id} names ${roster.length} participants; this host allows at most ${limits.maxParticipants}`,
        details: {
          reason: 'conversation_roster_exceeded',
          nodeId: node.id,
          participants: roster.length,
          maxParticipants: limits.maxParticipants,
          errors: [{ path: `/nodes/${index}/config/participants`, message }],
        },
      };
    }
  }
  return undefined;
}
