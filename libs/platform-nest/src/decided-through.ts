import { InProcessBus, NamespacedBus } from '@openwop/platform-bus';
import { DecidedThrough } from '@openwop/platform-db';
import type { Platform } from './platform';

/**
 * The registry of ADR 0038 for a host that is one process over its own in-process bus (every
 * partition of every group is served here): the embedded host, unless `DECIDE_THROUGH=off`.
 * Undefined for the distributed services, where a command to another module crosses a process.
 */
export function decidedThroughFor(platform: Pick<Platform, 'bus' | 'config'>): DecidedThrough | undefined {
  const { bus, config } = platform;
  if (config.mode !== 'embedded' || !config.decideThrough) return undefined;
  const inner = bus instanceof NamespacedBus ? bus.inner : bus;
  if (!(inner instanceof InProcessBus)) return undefined;
  const qualify =
    bus instanceof NamespacedBus ? (topic: string) => bus.qualify(topic) : (topic: string) => topic;
  return new DecidedThrough((topic, key, except) => inner.broker.unsettled(qualify(topic), key, except));
}
