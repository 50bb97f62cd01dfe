/**
 * Every Kafka topic the services use, named `<domain>.<internal|public>.<subject>.<kind>.v<N>`.
 * All but the audit facts are keyed by `runId`, so one run's messages stay in one partition, in order.
 */
export const Topics = {
  /** The run event log (RunEventDoc values). Single writer: the engine. */
  runEvents: 'run.public.run.event.v1',
  /** Commands owned by the engine (start run, …). */
  engineCommands: 'engine.internal.run.command.v1',
  /** Commands owned by the interrupt service. */
  interruptCommands: 'interrupt.internal.interrupt.command.v1',
  /** Commands owned by the token service. */
  tokenCommands: 'token.internal.token.command.v1',
  /** Decisions for the audit log (`AuditFact` values), keyed by tenant: one tenant's facts stay in order. */
  auditFacts: 'audit.internal.decision.fact.v1',
  /** Messages that failed their bounded retries. */
  deadLetter: 'platform.internal.dead-letter.message.v1',
} as const;

export type TopicName = (typeof Topics)[keyof typeof Topics];

/** The reply topic of one requesting instance (request/reply over the bus). */
export function replyTopic(instanceId: string): string {
  return `platform.internal.reply-${instanceId}.reply.v1`;
}

/** Consumer groups: one per owning service; instances of a service share it. */
export const ConsumerGroups = {
  engine: 'engine',
  projector: 'projector',
  interrupt: 'interrupt',
  token: 'token',
  notifier: 'notifier',
  audit: 'audit',
} as const;

/** Header names carried on every bus message. */
export const Headers = {
  messageId: 'openwop-message-id',
  messageType: 'openwop-message-type',
  correlationId: 'openwop-correlation-id',
  causationId: 'openwop-causation-id',
  replyTo: 'openwop-reply-to',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  deadLetterReason: 'openwop-dead-letter-reason',
  deadLetterTopic: 'openwop-dead-letter-topic',
  /** Why a message was dead-lettered: `exhausted`, `undecodable` or `refused` (see the bus port). */
  deadLetterCause: 'openwop-dead-letter-cause',
  /** The consumer group that gave the message up. */
  deadLetterGroup: 'openwop-dead-letter-group',
  attempts: 'openwop-attempts',
} as const;
