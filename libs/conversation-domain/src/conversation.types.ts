/**
 * Wire shapes of a conversation (RFC 0005 §C, RFC 0101), as the domain holds them. They mirror
 * `conversation-turn.schema.json`, `conversation-event.schema.json` and `agent-ref.schema.json`;
 * the edge validates inbound shapes, the domain trusts them (STYLE G5).
 */

/** `ConversationTurn.role`: who produced a turn. `system` turns are host-emitted and procedural. */
export type TurnRole = 'user' | 'agent' | 'system';

/** `agent-ref.schema.json`: the slim runtime identity of an agent (a roster member, RFC 0101). */
export interface AgentRef {
  /** For a roster member, the roster INSTANCE id (`host:<id>`, RFC 0086), not the manifest id. */
  readonly agentId: string;
  readonly name?: string;
  readonly modelClass?: string;
  readonly memoryRef?: string;
  readonly version?: string;
  readonly sourceManifestId?: string;
}

/** `ConversationTurn.agent`: the optional RFC 0002 §A1 reference on an agent turn (open shape). */
export type TurnAgentRef = Readonly<Record<string, unknown>> & { readonly agentId?: string };

/** One recorded turn (`conversation-turn.schema.json`). `turnIndex` is host-assigned and gapless. */
export interface ConversationTurn {
  /** Dedup key: a second turn with this id is the same turn. */
  readonly messageId: string;
  /** An agent id, `'user'`, or `'system'` for host-emitted turns. */
  readonly from: string;
  /** Opaque JSON; checked against the conversation's `turnSchema` when one was declared. */
  readonly content: unknown;
  /** Caller's clock (ms epoch), or the handler clock when the caller sent none. */
  readonly ts: number;
  readonly role: TurnRole;
  /** 0 is the initial turn; each next recorded turn is the previous index + 1. */
  readonly turnIndex: number;
  /** RFC 0101: the speaking agent's roster instance id; required on `agent` turns. */
  readonly speakerId?: string;
  readonly to?: string;
  readonly groupId?: string;
  readonly agent?: TurnAgentRef;
}

/**
 * A turn as a caller sends it (the `turn` of a `ConversationResolve`). The host assigns
 * `turnIndex` (a caller's value must match it) and fills `ts` from its clock when absent.
 */
export interface TurnInput {
  readonly messageId: string;
  readonly from: string;
  readonly content: unknown;
  readonly role: TurnRole;
  readonly speakerId?: string;
  readonly to?: string;
  readonly groupId?: string;
  readonly agent?: TurnAgentRef;
  readonly ts?: number;
  readonly turnIndex?: number;
}

/** A JSON Schema object, as declared by the workflow for the conversation's turns. */
export type TurnSchema = Readonly<Record<string, unknown>>;

/** `conversation-event.schema.json` `ConversationOpenedPayload`, with RFC 0101 `participants`. */
export interface ConversationOpenedPayload {
  readonly conversationId: string;
  readonly agentId?: string;
  readonly participants?: readonly AgentRef[];
  readonly initialTurn: ConversationTurn;
  readonly schema?: TurnSchema;
}

/** `ConversationExchangedPayload`: one turn after the initial one and before the closing one. */
export interface ConversationExchangedPayload {
  readonly conversationId: string;
  readonly turnIndex: number;
  readonly turn: ConversationTurn;
}

/** `ConversationClosedPayload`: the closing turn; `outcome` is `null` on timeout. */
export interface ConversationClosedPayload {
  readonly conversationId: string;
  readonly turnIndex: number;
  readonly finalTurn: ConversationTurn;
  readonly outcome: unknown;
}
