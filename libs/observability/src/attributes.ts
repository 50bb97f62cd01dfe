/**
 * The one place telemetry names live (STYLE G13). Span attributes use the spec's `openwop.*` names
 * (`spec/v1/observability.md`); metric names follow its metric section where it defines one.
 */
export const Attr = {
  runId: 'openwop.run_id',
  workflowId: 'openwop.workflow_id',
  tenantId: 'openwop.tenant_id',
  nodeId: 'openwop.node_id',
  eventType: 'openwop.event_type',
  eventSeq: 'openwop.event_seq',
  interruptKind: 'openwop.interrupt_kind',
  interruptId: 'openwop.interrupt_id',
  interruptCount: 'openwop.interrupt_count',
  conversationId: 'openwop.conversation_id',
  turnIndex: 'openwop.turn_index',
  runStatus: 'openwop.run_status',
  /**
   * How an interrupt ended (`resolved`, `timeout`, `cancelled`), on `openwop.interrupt.duration`
   * beside `openwop.run_status`, which `observability.md` requires there with the same value.
   */
  interruptOutcome: 'openwop.interrupt_outcome',
  /** Outcome of a token verification: `ok` or the refusal's error code. */
  tokenOutcome: 'openwop.token.outcome',
  messagingSystem: 'messaging.system',
  messagingDestination: 'messaging.destination.name',
  messagingGroup: 'messaging.consumer.group.name',
  messagingPartition: 'messaging.destination.partition.id',
  messagingOperation: 'messaging.operation.type',
  /** Messages handled together by one batch handler call. */
  messagingBatchCount: 'messaging.batch.message_count',
} as const;

/** Metric names (Prometheus shows them with `_` for `.`, counters with `_total`). */
export const MetricName = {
  interruptsRequested: 'openwop.interrupt.requested',
  interruptDuration: 'openwop.interrupt.duration',
  interruptsPending: 'openwop.interrupt.pending',
  interruptOldestAge: 'openwop.interrupt.oldest_age',
  conversationTurns: 'openwop.conversation.turns',
  tokenVerifications: 'openwop.token.verifications',
  consumerLag: 'openwop.bus.consumer_lag',
  deadLetters: 'openwop.bus.dead_letters',
} as const;

/**
 * The HITL attributes of an interrupt: kind, id and the per-(run, node) counter, which is the
 * last `:`-separated segment of the interrupt id (`<runId>:<nodeId>:<n>`).
 */
export function interruptAttributes(kind: string, interruptId: string): Record<string, string | number> {
  const attributes: Record<string, string | number> = {
    [Attr.interruptKind]: kind,
    [Attr.interruptId]: interruptId,
  };
  const count = interruptCountOf(interruptId);
  if (count !== undefined) attributes[Attr.interruptCount] = count;
  return attributes;
}

/** The per-(run, node) counter at the end of an interrupt id, if it has one. */
export function interruptCountOf(interruptId: string): number | undefined {
  const tail = interruptId.slice(interruptId.lastIndexOf(':') + 1);
  const count = Number(tail);
  return tail !== '' && Number.isInteger(count) && count >= 0 ? count : undefined;
}
