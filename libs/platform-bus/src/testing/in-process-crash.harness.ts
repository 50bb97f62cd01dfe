import { InProcessBus } from '../in-process.bus';
import {
  isBlockRequest,
  type CrashableConsumer,
  type StartCrashableConsumer,
} from './crashable-consumer.port';

/** The in-process crash: a subscriber removed with `InProcessSubscription.crash()` (a simulated kill -9). */
export const startInProcessCrashableConsumer: StartCrashableConsumer = async ({ bus, group, topic }) => {
  if (!(bus instanceof InProcessBus))
    throw new TypeError('startInProcessCrashableConsumer needs an InProcessBus');
  const handled: unknown[] = [];
  let blockedOn: unknown;
  let release: () => void = () => undefined;
  let finished: () => void = () => undefined;
  const handlerReturned = new Promise<void>((resolve) => (finished = resolve));
  const subscription = await bus.subscribe({
    group,
    topics: [topic],
    fromBeginning: true,
    handler: async (message) => {
      if (!isBlockRequest(message.value)) {
        handled.push(message.value);
        return;
      }
      blockedOn = message.value;
      await new Promise<void>((resolve) => (release = resolve));
      finished();
    },
  });
  const consumer: CrashableConsumer = {
    handled,
    get blockedOn() {
      return blockedOn;
    },
    kill: async () => {
      await subscription.crash();
      // The dead subscriber's handler now succeeds; let its worker run to the end: nothing may be committed.
      release();
      await handlerReturned;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
  return consumer;
};
