import { InProcessBus, NamespacedBus } from '@openwop/platform-bus';
import { DecisionProjection } from '@openwop/platform-db';
import type { Platform } from './platform';

/**
 * The projection in the deciding transaction (ADR 0039) for a host that is one process over its own
 * in-process bus: the embedded host, on PGlite or on `DATABASE_URL`. The projector registers its
 * code in it and the engine applies it to each decision's events. Undefined for the distributed
 * services, where the projector is a consumer of the run-event topic in a process of its own (and
 * where a header on a Kafka record proves nothing); and with `DECIDE_THROUGH=off`, which restores the
 * outbox path whole: a decision visible at its commit needs the interrupt it opens decided with it
 * (ADR 0038), or it is taken again without projecting (`decideOnce`).
 */
export function decisionProjectionFor(
  platform: Pick<Platform, 'bus' | 'config' | 'dataSource'>,
): DecisionProjection | undefined {
  const { bus, config, dataSource } = platform;
  if (config.mode !== 'embedded' || !config.decideThrough) return undefined;
  const inner = bus instanceof NamespacedBus ? bus.inner : bus;
  if (!(inner instanceof InProcessBus)) return undefined;
  return DecisionProjection.bind(dataSource);
}
