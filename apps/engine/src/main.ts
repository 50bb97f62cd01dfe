import './telemetry';
import 'reflect-metadata';
import { runServiceProcess } from '@openwop/platform-nest';
import { EngineModule } from './engine.module';

void runServiceProcess('engine', [EngineModule]).catch((e: unknown) => {
  console.error('engine failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
