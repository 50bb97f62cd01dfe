import './telemetry';
import 'reflect-metadata';
import { readHostConfig, runServiceProcess } from '@openwop/platform-nest';
import { loadKeyRing } from './key-ring/key-ring.loader';
import { readTokenSettings } from './key-ring/token-settings';
import { TokenModule } from './token.module';

const fail = (e: unknown): never => {
  console.error('token failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
};

// Fail fast on a missing or bad key ring before touching Kafka or Postgres.
try {
  loadKeyRing(readHostConfig('distributed'), process.env, { log: () => undefined, warn: () => undefined });
  readTokenSettings(process.env);
} catch (e) {
  fail(e);
}

void runServiceProcess('token', [TokenModule]).catch(fail);
