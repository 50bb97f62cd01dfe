import { Logger, Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  appLogger,
  metricsListenFromEnv,
  routeProcessOutput,
  startMetricsServer,
} from '@openwop/observability';
import { readHostConfig } from './host-config';
import { startPlatform, type Platform } from './platform';
import { PlatformModule } from './platform.module';
import { checkPlatformReadiness, type ReadinessDependencies } from './readiness';

/** The root module of one process: the platform adapters plus the given app modules. */
export function rootModule(platform: Platform, modules: readonly (Type | DynamicModule)[]): DynamicModule {
  @Module({})
  class RootModule {}
  return { module: RootModule, imports: [PlatformModule.forRoot(platform), ...modules] };
}

/**
 * Entry point of a headless service process (engine, projector, interrupt, token) in the
 * distributed mode: platform up, Nest context up, consumers joined; SIGTERM/SIGINT close in order.
 */
export async function runServiceProcess(
  name: string,
  modules: readonly (Type | DynamicModule)[],
): Promise<void> {
  const appLog = appLogger(`openwop-${name}`);
  routeProcessOutput(appLog);
  Logger.overrideLogger(appLog);
  const logger = new Logger(name);
  const platform = await startPlatform(readHostConfig('distributed'));
  const app = await NestFactory.createApplicationContext(rootModule(platform, modules), {
    bufferLogs: false,
    logger: appLog,
  });
  await app.init();
  await startMetricsListener(logger, platform);
  logger.log(`${name} ${platform.config.instanceId} ready`);
  closeOnSignals(app, platform, logger);
}

/**
 * Starts the listener `METRICS_PORT` asks for (none when unset): `GET /metrics` of this process,
 * `GET /healthz` (liveness) and `GET /readyz` (the bus and Postgres of `platform` answer within 2 s,
 * else `503 unavailable` naming the one that did not). The gateway and the embedded host then serve
 * `/metrics` there instead of on their API port.
 */
export async function startMetricsListener(
  logger: Logger,
  platform: ReadinessDependencies,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const listen = metricsListenFromEnv(env);
  if (!listen) return;
  const server = await startMetricsServer(listen.port, listen.host, {
    ready: () => checkPlatformReadiness(platform),
  });
  logger.log(`metrics on http://${listen.host}:${server.port}/metrics (probes: /healthz, /readyz)`);
}

/**
 * On the first SIGTERM or SIGINT: close the Nest app (consumers stop after their in-flight message,
 * HTTP stops accepting), then the platform (relay, bus, feed, database), then exit 0.
 */
export function closeOnSignals(app: { close(): Promise<void> }, platform: Platform, logger: Logger): void {
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    logger.log(`${signal}: shutting down`);
    void (async () => {
      await app.close();
      await platform.close();
      process.exit(0);
    })();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
