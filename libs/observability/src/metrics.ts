import {
  metrics,
  type Attributes,
  type Counter,
  type Histogram,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';
import { Attr, MetricName } from './attributes';
import { currentTelemetry } from './telemetry';

/** Seconds; from sub-second machine answers to the week-long human waits of `observability.md`. */
const INTERRUPT_DURATION_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 14400, 86400, 604800];

interface Instruments {
  readonly interruptsRequested: Counter;
  readonly interruptDuration: Histogram;
  readonly conversationTurns: Counter;
  readonly tokenVerifications: Counter;
  readonly deadLetters: Counter;
  readonly interruptsPending: ObservableGauge;
  readonly interruptOldestAge: ObservableGauge;
  readonly consumerLag: ObservableGauge;
}

let instruments: Instruments | undefined;

/** The instruments, once telemetry started with metrics (before that, and when disabled, none). */
function get(): Instruments | undefined {
  if (instruments) return instruments;
  if (!currentTelemetry()?.metrics) return undefined;
  const meter = metrics.getMeter('openwop');
  instruments = {
    interruptsRequested: meter.createCounter(MetricName.interruptsRequested, {
      description: 'Interrupts opened (HITL suspensions), by kind.',
    }),
    interruptDuration: meter.createHistogram(MetricName.interruptDuration, {
      description: 'Time from an interrupt being requested to its resolution, timeout or cancellation.',
      unit: 's',
      advice: { explicitBucketBoundaries: INTERRUPT_DURATION_BUCKETS },
    }),
    conversationTurns: meter.createCounter(MetricName.conversationTurns, {
      description: 'Conversation turns answered (resolved conversation interrupts), by kind.',
    }),
    tokenVerifications: meter.createCounter(MetricName.tokenVerifications, {
      description: 'Signed resolution token verifications, by outcome (ok or the refusal code).',
    }),
    deadLetters: meter.createCounter(MetricName.deadLetters, {
      description:
        'Messages moved to the dead-letter topic (retries exhausted, undecodable, or a refusal nobody waited for), by source topic, group and cause.',
    }),
    interruptsPending: meter.createObservableGauge(MetricName.interruptsPending, {
      description: 'Interrupts waiting for an answer, by kind (from the pending-interrupts projection).',
    }),
    interruptOldestAge: meter.createObservableGauge(MetricName.interruptOldestAge, {
      description: 'Age of the oldest pending interrupt, by kind.',
      unit: 's',
    }),
    consumerLag: meter.createObservableGauge(MetricName.consumerLag, {
      description: 'Messages a consumer group has not committed yet, per topic and partition.',
    }),
  };
  return instruments;
}

/** An interrupt was opened. */
export function countInterruptRequested(kind: string): void {
  get()?.interruptsRequested.add(1, { [Attr.interruptKind]: kind });
}

/**
 * An interrupt ended: `outcome` is `resolved`, `timeout` or `cancelled`, recorded as
 * `openwop.interrupt_outcome` and, because `observability.md` requires that name on this metric,
 * as `openwop.run_status` too (it holds the interrupt's outcome, not a run status).
 */
export function recordInterruptDuration(kind: string, outcome: string, seconds: number): void {
  get()?.interruptDuration.record(Math.max(0, seconds), {
    [Attr.interruptKind]: kind,
    [Attr.interruptOutcome]: outcome,
    [Attr.runStatus]: outcome,
  });
}

export function countConversationTurn(kind: string): void {
  get()?.conversationTurns.add(1, { [Attr.interruptKind]: kind });
}

/** `outcome`: `ok`, or the error code the verification refused with. */
export function countTokenVerification(outcome: string): void {
  get()?.tokenVerifications.add(1, { [Attr.tokenOutcome]: outcome });
}

/** A message went to the dead-letter topic; `cause` is `exhausted`, `undecodable` or `refused`. */
export function countDeadLetter(topic: string, group: string, cause = 'exhausted'): void {
  get()?.deadLetters.add(1, { topic, group, cause });
}

/**
 * Makes counters visible at 0 before their first event, so dashboards and `rate()` see a series
 * from the start: `series` are the label sets the owning service will use.
 */
export function seedCounters(series: {
  interruptKinds?: readonly string[];
  conversationKinds?: readonly string[];
  tokenOutcomes?: readonly string[];
  deadLetters?: readonly { topic: string; group: string }[];
}): void {
  const m = get();
  if (!m) return;
  for (const kind of series.interruptKinds ?? [])
    m.interruptsRequested.add(0, { [Attr.interruptKind]: kind });
  for (const kind of series.conversationKinds ?? [])
    m.conversationTurns.add(0, { [Attr.interruptKind]: kind });
  for (const outcome of series.tokenOutcomes ?? [])
    m.tokenVerifications.add(0, { [Attr.tokenOutcome]: outcome });
  for (const s of series.deadLetters ?? [])
    m.deadLetters.add(0, { topic: s.topic, group: s.group, cause: 'exhausted' });
}

export interface PendingInterruptSample {
  readonly kind: string;
  readonly count: number;
  readonly oldestAgeSeconds: number;
}

/**
 * Reports the pending-interrupt gauges at each scrape from `sample` (a projection query).
 * @returns a function that stops reporting.
 */
export function observePendingInterrupts(
  sample: () => Promise<readonly PendingInterruptSample[]>,
): () => void {
  const m = get();
  if (!m) return () => undefined;
  const meter = metrics.getMeter('openwop');
  const callback = async (result: {
    observe(gauge: ObservableGauge, value: number, attributes?: Attributes): void;
  }) => {
    for (const s of await sample()) {
      result.observe(m.interruptsPending, s.count, { [Attr.interruptKind]: s.kind });
      result.observe(m.interruptOldestAge, s.oldestAgeSeconds, { [Attr.interruptKind]: s.kind });
    }
  };
  meter.addBatchObservableCallback(callback, [m.interruptsPending, m.interruptOldestAge]);
  return () => meter.removeBatchObservableCallback(callback, [m.interruptsPending, m.interruptOldestAge]);
}

export interface LagSample {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}

/**
 * Reports consumer lag at each scrape from `sample` (cheap: it returns the last periodic reading).
 * @returns a function that stops reporting.
 */
export function observeConsumerLag(sample: () => readonly LagSample[]): () => void {
  const m = get();
  if (!m) return () => undefined;
  const callback = (result: ObservableResult) => {
    for (const s of sample()) {
      result.observe(s.lag, { group: s.group, topic: s.topic, partition: String(s.partition) });
    }
  };
  m.consumerLag.addCallback(callback);
  return () => m.consumerLag.removeCallback(callback);
}

/** True when metrics are collected in this process (periodic samplers start only then). */
export function metricsEnabled(): boolean {
  return get() !== undefined;
}
