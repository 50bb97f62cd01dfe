// Given/when/then kit for the conversation specs (not a test file itself: jest runs *.unit.spec.ts).
import { expect } from '@jest/globals';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { DomainError } from '@openwop/kernel';
import { deciderSpec } from '@openwop/testing';
import agentRefSchema from '../../contracts/src/schemas/agent-ref.schema.json';
import conversationEventSchema from '../../contracts/src/schemas/conversation-event.schema.json';
import conversationTurnSchema from '../../contracts/src/schemas/conversation-turn.schema.json';
import type {
  CloseConversation,
  ConversationCommand,
  ExchangeTurn,
  OpenConversation,
} from './conversation.commands';
import { conversationDecider, decideConversation } from './conversation.decider';
import type { ConversationEvent } from './conversation.events';
import { evolveConversation, initialConversationState, type ConversationState } from './conversation.state';
import type { AgentRef, TurnInput } from './conversation.types';

export const NOW = '2026-11-21T10:00:00.000Z';
export const LATER = '2026-11-21T10:05:00.000Z';
export const NOW_MS = Date.parse(NOW);
export const LATER_MS = Date.parse(LATER);
export const SUSPENDED_EVENT_ID = 'r1:7';
export const CID = 'r1:convo:0';

export const roster = (...ids: string[]): AgentRef[] => ids.map((agentId) => ({ agentId }));
export const COUNCIL = roster('host:cfo', 'host:cto', 'host:coo');

export function openCommand(over: Partial<OpenConversation> = {}): OpenConversation {
  return {
    type: 'OpenConversation',
    runId: 'r1',
    nodeId: 'convo',
    attempt: 0,
    maxParticipants: 8,
    initialTurn: userTurn('Should we launch in Q3?', `${CID}:0:user`),
    now: NOW,
    causationId: SUSPENDED_EVENT_ID,
    ...over,
  };
}

export function userTurn(content: unknown, messageId: string, over: Partial<TurnInput> = {}): TurnInput {
  return { messageId, from: 'user', content, role: 'user', ...over };
}

export function agentTurn(
  speakerId: string | undefined,
  content: unknown,
  messageId: string,
  over: Partial<TurnInput> = {},
): TurnInput {
  return {
    messageId,
    from: speakerId ?? 'agent',
    content,
    role: 'agent',
    ...(speakerId !== undefined ? { speakerId } : {}),
    ...over,
  };
}

export const exchange = (turn: TurnInput, now = NOW): ExchangeTurn => ({ type: 'ExchangeTurn', turn, now });

export const close = (over: Partial<CloseConversation> = {}): CloseConversation => ({
  type: 'CloseConversation',
  outcome: { decision: 'Q4' },
  now: LATER,
  ...over,
});

/** The events of `commands` run in order from nothing; each must be accepted. */
export function history(...commands: ConversationCommand[]): ConversationEvent[] {
  const events: ConversationEvent[] = [];
  let state = initialConversationState();
  for (const command of commands) {
    const decided = decideConversation(command, state);
    events.push(...decided);
    state = decided.reduce(evolveConversation, state);
  }
  return events;
}

export const fold = (
  events: readonly ConversationEvent[],
  from = initialConversationState(),
): ConversationState => events.reduce(evolveConversation, from);

// --- The wire schemas -------------------------------------------------------------------------

/**
 * `conversation-event.schema.json` predates RFC 0101. This applies the RFC's §Schema diffs as it
 * states them: an inlined `AgentRef` `$def`, an optional `participants: AgentRef[]` on the opened
 * payload, and `speakerId` with its `role: agent` conditional mirrored into the inlined turn.
 */
function withRfc0101(schema: typeof conversationEventSchema): Record<string, unknown> {
  const patched: { $defs: Record<string, { properties: Record<string, unknown>; allOf?: unknown[] }> } =
    structuredClone(schema);
  const { $schema: _s, $id: _i, ...agentRef } = agentRefSchema;
  patched.$defs.AgentRef = agentRef;
  patched.$defs.ConversationOpenedPayload!.properties.participants = {
    type: 'array',
    items: { $ref: '#/$defs/AgentRef' },
  };
  const turn = patched.$defs.ConversationTurn!;
  turn.properties.speakerId = { type: 'string', minLength: 1, maxLength: 256 };
  turn.allOf = [
    {
      if: { properties: { role: { const: 'agent' } }, required: ['role'] },
      then: { required: ['speakerId'] },
    },
  ];
  return patched;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema(withRfc0101(conversationEventSchema));
const EVENT_ID = conversationEventSchema.$id;
const payloadValidators: Record<ConversationEvent['type'], ValidateFunction> = {
  'conversation.opened': ajv.getSchema(`${EVENT_ID}#/$defs/ConversationOpenedPayload`)!,
  'conversation.exchanged': ajv.getSchema(`${EVENT_ID}#/$defs/ConversationExchangedPayload`)!,
  'conversation.closed': ajv.getSchema(`${EVENT_ID}#/$defs/ConversationClosedPayload`)!,
};
export const validateEventPayload = ajv.getSchema(EVENT_ID)!;
export const validateTurn = ajv.compile(conversationTurnSchema);
export const validateRawEventPayload = new Ajv2020({ strict: false }).compile(conversationEventSchema);

const errorsOf = (v: ValidateFunction) => JSON.stringify(v.errors);

/** Every conversation event's payload is wire-valid, and so is every turn it carries. */
export function expectWireValid(event: ConversationEvent): void {
  const { payload } = event.data;
  const own = payloadValidators[event.type];
  expect([event.type, own(payload) ? 'valid' : errorsOf(own)]).toEqual([event.type, 'valid']);
  expect(validateEventPayload(payload) ? 'valid' : errorsOf(validateEventPayload)).toBe('valid');
  const turn =
    'initialTurn' in payload
      ? payload.initialTurn
      : 'finalTurn' in payload
        ? payload.finalTurn
        : payload.turn;
  expect(validateTurn(turn) ? 'valid' : errorsOf(validateTurn)).toBe('valid');
}

// --- given / when / then ----------------------------------------------------------------------

/** The conversation decider under the shared given/when/then; every decided event is wire-checked. */
export const conversationSpec = deciderSpec(conversationDecider, { check: expectWireValid });

/**
 * The older spelling over {@link conversationSpec}: `given(...events).when(command)` with
 * `.events()`, `.next()`, `.then(events)` and `.thenRefuses(code, details?)`. New specs use
 * `conversationSpec.given([...events])` and its `decided`, `nextState`, `then`, `thenThrows`.
 */
export function given(...events: ConversationEvent[]) {
  const step = conversationSpec.given(events);
  return {
    state: step.state,
    when(command: ConversationCommand) {
      const when = step.when(command);
      return {
        events: (): ConversationEvent[] => [...when.decided()],
        next: (): ConversationState => when.nextState(),
        then(expected: readonly ConversationEvent[]): void {
          when.then(expected);
        },
        thenRefuses(code: string, details?: Record<string, unknown>): DomainError {
          return when.thenThrows({ code, ...(details ? { details } : {}) });
        },
      };
    },
  };
}
