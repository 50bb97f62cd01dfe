import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { CrashableConsumer, StartCrashableConsumer } from './crashable-consumer.port';

type ChildReport =
  | { type: 'ready' }
  | { type: 'handled'; value: unknown }
  | { type: 'blocked'; value: unknown };

/**
 * The real crash: a kafkajs consumer in a child process (`crash-consumer.cjs`), killed with SIGKILL,
 * so it neither commits nor leaves the group; the broker evicts it after its 6 s session timeout.
 */
export function kafkaCrashHarness(
  brokers: readonly string[],
  readyTimeoutMs = 30_000,
): StartCrashableConsumer {
  return async ({ group, topic }) => {
    const child = fork(join(__dirname, 'crash-consumer.cjs'), [], {
      env: { ...process.env, CRASH_BROKERS: brokers.join(','), CRASH_GROUP: group, CRASH_TOPIC: topic },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const handled: unknown[] = [];
    let blockedOn: unknown;
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`crash consumer not ready within ${readyTimeoutMs} ms`)),
        readyTimeoutMs,
      );
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`crash consumer exited early (code ${code})`));
      });
      child.on('message', (report: ChildReport) => {
        if (report.type === 'ready') {
          clearTimeout(timer);
          resolve();
        } else if (report.type === 'handled') handled.push(report.value);
        else blockedOn = report.value;
      });
    });
    const kill = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    };
    try {
      await ready;
    } catch (error) {
      await kill();
      throw error;
    }
    const consumer: CrashableConsumer = {
      handled,
      get blockedOn() {
        return blockedOn;
      },
      kill,
    };
    return consumer;
  };
}
