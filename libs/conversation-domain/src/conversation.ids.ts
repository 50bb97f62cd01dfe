/** The host-assigned, replay-deterministic conversation id (RFC 0005 §B). */
export function conversationIdOf(runId: string, nodeId: string, attempt: number): string {
  return `${runId}:${nodeId}:${attempt}`;
}

/**
 * The default id of the conversation event that records turn `turnIndex`. Every event records
 * exactly one turn (opened: 0, exchanged: 1.., closed: the last), so the pair is unique and a
 * re-decided event gets the same id. A writer that knows the run-log id up front passes it instead.
 */
export function conversationEventId(conversationId: string, turnIndex: number): string {
  return `${conversationId}#${turnIndex}`;
}

/** The RFC 0005 §C recommended messageId for a host-emitted turn, unique among `taken`. */
export function systemMessageId(
  conversationId: string,
  turnIndex: number,
  taken: ReadonlyMap<string, number>,
): string {
  const base = `${conversationId}:${turnIndex}:system`;
  let id = base;
  for (let n = 1; taken.has(id); n++) id = `${base}:${n}`;
  return id;
}

/** The ms epoch of an ISO timestamp a handler passed as `now`. */
export function msOf(now: string): number {
  const ms = Date.parse(now);
  // A bad clock value is a bug in the caller, not a client error: never a DomainError.
  if (Number.isNaN(ms)) throw new Error(`now must be an ISO timestamp, got ${JSON.stringify(now)}`);
  return ms;
}
