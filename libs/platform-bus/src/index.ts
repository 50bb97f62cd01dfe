export {
  BUS,
  DEFAULT_MAX_BATCH,
  RequestTimeoutError,
  type BatchHandler,
  type Bus,
  type IncomingMessage,
  type MessageHandler,
  type OutgoingMessage,
  type RequestHandler,
  type RequestOptions,
  type ServeOptions,
  type SubscribeOptions,
  type Subscription,
} from './bus.port';
export { InProcessBus, type InProcessBusOptions } from './in-process.bus';
export { InProcessBroker, type InProcessBrokerOptions } from './in-process/in-process.broker';
export { InProcessSubscription } from './in-process/in-process.subscription';
export { KafkaBus } from './kafka.bus';
export { NamespacedBus } from './namespaced.bus';
export { brokersFromEnv, FAILOVER_BOUND_MS, type KafkaBusOptions } from './kafka/kafka-bus.options';
export { BrokerUnreachableError } from './kafka/broker-unreachable.error';
