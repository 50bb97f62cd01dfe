import './telemetry';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { appLogger, routeProcessOutput } from '@openwop/observability';
import {
  closeOnSignals,
  readHostConfig,
  rootModule,
  startMetricsListener,
  startPlatform,
} from '@openwop/platform-nest';
import { configureGatewayApp } from './configure-gateway-app';
import { GatewayModule } from './gateway.module';

/**
 * The distributed gateway process: Kafka + Postgres adapters, the gateway module, one HTTP
 * listener. SIGTERM/SIGINT close the app (open streams end first), then the platform.
 */
async function main(): Promise<void> {
  const appLog = appLogger('openwop-gateway');
  routeProcessOutput(appLog);
  Logger.overrideLogger(appLog);
  const logger = new Logger('Gateway');
  const config = readHostConfig('distributed');
  const platform = await startPlatform(config);
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(rootModule(platform, [GatewayModule]), {
      bufferLogs: false,
      abortOnError: false,
      logger: appLog,
    });
    configureGatewayApp(app);
    await app.listen(config.port, config.host);
    await startMetricsListener(logger, platform);
  } catch (error) {
    await platform.close().catch(() => undefined);
    throw error;
  }
  logger.log(
    `gateway ${config.instanceId} listening on http://${config.host}:${config.port} (public URL ${config.publicUrl})`,
  );
  closeOnSignals(app, platform, logger);
}

main().catch((error: unknown) => {
  console.error('gateway failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
