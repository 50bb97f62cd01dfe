import './telemetry';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { EngineModule } from '@openwop/engine';
import { configureGatewayApp, GatewayModule } from '@openwop/gateway';
import { InterruptModule } from '@openwop/interrupt';
import { appLogger, routeProcessOutput } from '@openwop/observability';
import { closeOnSignals, readHostConfig, rootModule, startMetricsListener, startPlatform } from '@openwop/platform-nest';
import { NotifierModule } from '@openwop/notifier';
import { ProjectorModule } from '@openwop/projector';
import { TokenModule } from '@openwop/token';
import { assertPortFree, startBanner, withoutRouteMappingLines } from './startup';

/**
 * The embedded host: every app in one process over the in-process bus and PGlite (or
 * `DATABASE_URL`). Same modules, same API as the distributed stack.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const nestLogger = withoutRouteMappingLines(appLogger('openwop-embedded'));
  routeProcessOutput(nestLogger);
  Logger.overrideLogger(nestLogger);
  const logger = new Logger('embedded');
  const config = readHostConfig('embedded');
  await assertPortFree(config);
  const platform = await startPlatform(config);
  const app = await NestFactory.create<NestExpressApplication>(
    rootModule(platform, [EngineModule, ProjectorModule, InterruptModule, TokenModule, NotifierModule, GatewayModule]),
    { bufferLogs: false, logger: nestLogger },
  );
  configureGatewayApp(app);
  await app.listen(platform.config.port, platform.config.host);
  await startMetricsListener(logger, platform);
  logger.log(startBanner(platform.config, Date.now() - started));
  closeOnSignals(app, platform, logger);
}

main().catch((e: unknown) => {
  console.error('embedded host failed to start:', e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
