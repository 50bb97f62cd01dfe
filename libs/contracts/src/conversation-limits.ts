/** Environment variable holding the largest participant roster a conversation may declare (RFC 0101). */
export const MAX_CONVERSATION_PARTICIPANTS_ENV = 'MAX_CONVERSATION_PARTICIPANTS';

/** Roster size limit when the environment sets none. */
export const DEFAULT_MAX_CONVERSATION_PARTICIPANTS = 8;

/** Host limits on conversations, shared by the engine (enforcement) and the gateway (discovery). */
export interface ConversationLimits {
  /** Largest `participants` roster; advertised as `multiPartyConversation.maxParticipants` (≥ 2). */
  readonly maxParticipants: number;
}

/**
 * Reads the conversation limits from `env` (`MAX_CONVERSATION_PARTICIPANTS`, default 8).
 *
 * @throws Error when the variable is set but is not an integer ≥ 2 (the capability's minimum),
 *   so a misconfigured host fails at start instead of advertising a limit it cannot honour.
 */
export function conversationLimits(env: Readonly<Record<string, string | undefined>> = process.env): ConversationLimits {
  const raw = env[MAX_CONVERSATION_PARTICIPANTS_ENV]?.trim();
  if (raw === undefined || raw === '') return { maxParticipants: DEFAULT_MAX_CONVERSATION_PARTICIPANTS };
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 2) {
    throw new Error(`${MAX_CONVERSATION_PARTICIPANTS_ENV} must be an integer >= 2, got '${raw}'`);
  }
  return { maxParticipants: Number(raw) };
}
