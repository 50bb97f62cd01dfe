import { MAX_TURN_TS_MS } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import type { TurnInput, TurnRole } from './conversation.types';

/** A `ConversationResolve` (RFC 0005 §E) as the interrupt service reads a resume value. */
export type ConversationResolve =
  | { readonly operation: 'exchange'; readonly turn: TurnInput }
  | {
      readonly operation: 'close';
      readonly turn?: TurnInput;
      readonly outcome?: unknown;
      readonly reason?: string;
    };

const ROLES: readonly TurnRole[] = ['user', 'agent', 'system'];

/** Whether a resume value is a `ConversationResolve` (it names an `operation`). */
export function isConversationResolve(
  value: unknown,
): value is Record<string, unknown> & { operation: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'operation' in value;
}

/**
 * Reads a `ConversationResolve`. `turn.from` defaults to `user` and `turn.role` to `user`;
 * `messageId` is required (it is the retry key).
 * @throws a `validation_error` {@link DomainError} naming each bad field; nothing is decided.
 */
export function parseConversationResolve(value: Record<string, unknown>): ConversationResolve {
  const errors: { path: string; message: string }[] = [];
  const { operation } = value;
  if (operation !== 'exchange' && operation !== 'close') {
    errors.push({ path: '/operation', message: "must be 'exchange' or 'close'" });
  }
  const turn = value.turn === undefined ? undefined : turnOf(value.turn, errors);
  if (operation === 'exchange' && value.turn === undefined)
    errors.push({ path: '/turn', message: 'is required for exchange' });
  if (value.reason !== undefined && typeof value.reason !== 'string')
    errors.push({ path: '/reason', message: 'must be a string' });
  if (errors.length) throw new DomainError('validation_error', 'invalid ConversationResolve', { errors });
  if (operation === 'exchange') return { operation, turn: turn! };
  return {
    operation: 'close',
    ...(turn ? { turn } : {}),
    ...('outcome' in value ? { outcome: value.outcome } : {}),
    ...(typeof value.reason === 'string' ? { reason: value.reason } : {}),
  };
}

function turnOf(raw: unknown, errors: { path: string; message: string }[]): TurnInput | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    errors.push({ path: '/turn', message: 'must be an object' });
    return undefined;
  }
  const t = raw as Record<string, unknown>;
  const str = (k: string, max = 512) => {
    const v = t[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.length === 0 || v.length > max) {
      errors.push({ path: `/turn/${k}`, message: `must be a string of 1..${max} characters` });
      return undefined;
    }
    return v;
  };
  const messageId = str('messageId');
  if (t.messageId === undefined) errors.push({ path: '/turn/messageId', message: 'is required' });
  const from = str('from') ?? 'user';
  const role = (t.role ?? 'user') as TurnRole;
  if (!ROLES.includes(role))
    errors.push({ path: '/turn/role', message: `must be one of ${ROLES.join(', ')}` });
  const speakerId = str('speakerId');
  const to = str('to');
  const groupId = str('groupId');
  // `conversation_turns.ts` is a bigint and a turn's time an instant: an integer epoch-ms in range.
  if (
    t.ts !== undefined &&
    (!Number.isInteger(t.ts) || (t.ts as number) < 0 || (t.ts as number) > MAX_TURN_TS_MS)
  )
    errors.push({ path: '/turn/ts', message: `must be an integer epoch-ms from 0 to ${MAX_TURN_TS_MS}` });
  if (t.turnIndex !== undefined && (!Number.isInteger(t.turnIndex) || (t.turnIndex as number) < 0)) {
    errors.push({ path: '/turn/turnIndex', message: 'must be a non-negative integer' });
  }
  if (!messageId) return undefined;
  return {
    messageId,
    from,
    role,
    content: t.content === undefined ? null : t.content,
    ...(speakerId !== undefined ? { speakerId } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(groupId !== undefined ? { groupId } : {}),
    ...(typeof t.ts === 'number' ? { ts: t.ts } : {}),
    ...(typeof t.turnIndex === 'number' ? { turnIndex: t.turnIndex } : {}),
    ...(typeof t.agent === 'object' && t.agent !== null ? { agent: t.agent as Record<string, unknown> } : {}),
  };
}
