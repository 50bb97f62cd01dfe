import 'reflect-metadata';
import { runServiceProcess } from '@openwop/platform-nest';
import { TokenModule } from './token.module';

void runServiceProcess('token', [TokenModule]).catch((e: unknown) => {
  console.error('token failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
