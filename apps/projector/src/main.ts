import './telemetry';
import 'reflect-metadata';
import { runServiceProcess } from '@openwop/platform-nest';
import { ProjectorModule } from './projector.module';

void runServiceProcess('projector', [ProjectorModule]).catch((e: unknown) => {
  console.error('projector failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
