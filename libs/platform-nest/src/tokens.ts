/** DI tokens of the platform ports every app module receives. */
export const DATA_SOURCE = Symbol('DATA_SOURCE');
export const RUN_EVENT_FEED = Symbol('RUN_EVENT_FEED');
export const OUTBOX_RELAY = Symbol('OUTBOX_RELAY');
export const HOST_CONFIG = Symbol('HOST_CONFIG');
/** The one-process host's `DecidedThrough` (ADR 0038), or null. */
export const DECIDED_THROUGH = Symbol('DECIDED_THROUGH');
/** The one-process host's `DecisionProjection` (ADR 0039: the snapshot projected in the deciding transaction), or null. */
export const DECISION_PROJECTION = Symbol('DECISION_PROJECTION');
export { BUS } from '@openwop/platform-bus';
