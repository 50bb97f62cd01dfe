import './telemetry';
import 'reflect-metadata';
import { runServiceProcess } from '@openwop/platform-nest';
import { InterruptModule } from './interrupt.module';

void runServiceProcess('interrupt', [InterruptModule]).catch((e: unknown) => {
  console.error('interrupt failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
