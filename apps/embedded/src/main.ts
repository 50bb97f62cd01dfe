import './telemetry';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { EngineModule } from '@openwop/engine';
import { configureGatewayApp, GatewayModule } from '@openwop/gateway';
import { InterruptModule } from '@openwop/interrupt';
import { appLogger, isPrettyLogFormat, routeProcessOutput } from '@openwop/observability';
import {
  closeOnSignals,
  readHostConfig,
  rootModule,
  startMetricsListener,
  startPlatform,
} from '@openwop/platform-nest';
import { NotifierModule } from '@openwop/notifier';
import { ProjectorModule } from '@openwop/projector';
import { TokenModule } from '@openwop/token';
import { assertPortFree, startBanner, startupFailureText, withoutRouteMappingLines } from './startup';

/** The levels a host logs at once it runs (the same as `appLogger`'s). */
const RUNNING_LEVELS = ['log', 'error', 'warn', 'fatal'] as const;

/**
 * The embedded host: every app in one process over the in-process bus and PGlite (or
 * `DATABASE_URL`). Same modules, same API as the distributed stack. At a terminal (the pretty
 * format) it starts quietly: warnings and errors only until the banner, which is the last thing
 * start-up prints; JSON logs keep every start-up line.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const nestLogger = withoutRouteMappingLines(appLogger('openwop-embedded'));
  const quietStart = isPrettyLogFormat();
  if (quietStart) nestLogger.setLogLevels?.(['error', 'warn', 'fatal']);
  routeProcessOutput(nestLogger);
  Logger.overrideLogger(nestLogger);
  const logger = new Logger('embedded');
  const config = readHostConfig('embedded');
  await assertPortFree(config);
  const platform = await startPlatform(config);
  const app = await NestFactory.create<NestExpressApplication>(
    rootModule(platform, [
      EngineModule,
      ProjectorModule,
      InterruptModule,
      TokenModule,
      NotifierModule,
      GatewayModule,
    ]),
    { bufferLogs: false, logger: nestLogger },
  );
  configureGatewayApp(app);
  await app.listen(platform.config.port, platform.config.host);
  await startMetricsListener(logger, platform);
  if (quietStart) nestLogger.setLogLevels?.([...RUNNING_LEVELS]);
  logger.log(startBanner(platform.config, Date.now() - started));
  closeOnSignals(app, platform, logger);
}

main().catch((e: unknown) => {
  console.error(`embedded host failed to start: ${startupFailureText(e)}`);
  process.exit(1);
});
