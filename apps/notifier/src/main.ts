import './telemetry';
import 'reflect-metadata';
import { runServiceProcess } from '@openwop/platform-nest';
import { NotifierModule } from './notifier.module';

void runServiceProcess('notifier', [NotifierModule]).catch((e: unknown) => {
  console.error('notifier failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
