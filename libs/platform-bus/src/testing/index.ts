export { describeBusContract, type BusContractOptions } from './bus.contract';
export type {
  CrashableConsumer,
  CrashableConsumerArgs,
  StartCrashableConsumer,
} from './crashable-consumer.port';
export { startInProcessCrashableConsumer } from './in-process-crash.harness';
export { kafkaCrashHarness } from './kafka-crash.harness';
export { MessageRecorder, type RecordedMessage } from './message.recorder';
export { uniqueName } from './unique-name.util';
export { waitFor, type WaitForOptions } from './wait-for.util';
