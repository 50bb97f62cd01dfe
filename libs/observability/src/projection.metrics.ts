import { metrics, type Counter } from '@opentelemetry/api';
import { currentTelemetry } from './telemetry';

/** The projector's health: events it could not store, and events held behind them. */
export const ProjectionMetricName = {
  /** Runs whose projection was marked broken, by event type (the event it could not store). */
  projectionFailures: 'openwop.projection.failures',
  /** Events of a broken run not applied, held for the repair replay, by event type. */
  projectionHeldEvents: 'openwop.projection.held_events',
} as const;

let instruments: { failures: Counter; held: Counter } | undefined;

function get(): typeof instruments {
  if (instruments) return instruments;
  if (!currentTelemetry()?.metrics) return undefined;
  const meter = metrics.getMeter('openwop');
  instruments = {
    failures: meter.createCounter(ProjectionMetricName.projectionFailures, {
      description:
        'Run events the projector could not store: the run is marked broken (projectionError) until repaired.',
    }),
    held: meter.createCounter(ProjectionMetricName.projectionHeldEvents, {
      description: 'Events of a run marked broken that the projector held instead of applying out of order.',
    }),
  };
  return instruments;
}

export function countProjectionFailure(eventType: string): void {
  get()?.failures.add(1, { event_type: eventType });
}

export function countProjectionHeld(eventType: string, count = 1): void {
  get()?.held.add(count, { event_type: eventType });
}
