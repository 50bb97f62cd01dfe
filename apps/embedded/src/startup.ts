import { createServer } from 'node:net';
import type { LoggerService } from '@nestjs/common';
import { API_KEYS_ENV, devApiKeyFile } from '@openwop/gateway';
import { DataDirLockedError } from '@openwop/platform-db';
import type { HostConfig } from '@openwop/platform-nest';

/** The API port is taken (most often by a host that already runs). */
export class PortInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PortInUseError';
  }
}

/**
 * What the host prints when it does not start: for a refusal it expects (the port in use, the data
 * folder held by another host) the message alone, which says what to do; for anything else the
 * stack too, which is what a bug report needs.
 */
export function startupFailureText(error: unknown): string {
  if (error instanceof PortInUseError || error instanceof DataDirLockedError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * Fails fast, before the database is opened, when the API port is taken: most often an embedded
 * host that already runs (a second `npm start`), whose data folder and key must be left alone.
 */
export async function assertPortFree(config: Pick<HostConfig, 'host' | 'port' | 'publicUrl'>): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error);
      reject(
        new PortInUseError(
          `${config.host}:${config.port} is in use — is a host already running at ${config.publicUrl}? ` +
            'Use that one (wop and the admin page talk to it), stop it first, or start this one with another PORT ' +
            'and OPENWOP_DATA_DIR.',
        ),
      );
    });
    probe.listen(config.port, config.host, () => probe.close(() => resolve()));
  });
}

/** The lines a person needs once the host is up: where the API, its reference, the admin page and the key are. */
export function startBanner(
  config: Pick<HostConfig, 'publicUrl' | 'dataDir'>,
  startedMs: number,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const url = config.publicUrl.replace(/\/+$/, '');
  const key = env[API_KEYS_ENV]?.trim()
    ? `the keys of ${API_KEYS_ENV}`
    : `${devApiKeyFile(env)} (the wop CLI reads it)`;
  return [
    `OpenWOP host (embedded) ready in ${startedMs} ms`,
    `  API         ${url}  (discovery: ${url}/.well-known/openwop)`,
    `  API docs    ${url}/docs  (OpenAPI: ${url}/v1/openapi.json)`,
    `  admin page  ${url}/admin`,
    `  API key     ${key}`,
    `  CLI         npx wop --help`,
    `  data        ${config.dataDir ?? 'in memory (gone when the host stops)'}`,
  ].join('\n');
}

/** Nest's per-route startup lines: one per route, useful when debugging routing, noise otherwise. */
const ROUTE_MAPPING_CONTEXTS = new Set(['RoutesResolver', 'RouterExplorer']);

/**
 * `logger` with Nest's route-mapping lines moved from `log` to `verbose`, so the start banner is
 * not buried under sixty of them (they show with `verbose` enabled).
 */
export function withoutRouteMappingLines(logger: LoggerService): LoggerService {
  const isRouteMapping = (rest: unknown[]) => {
    const context = rest[rest.length - 1];
    return typeof context === 'string' && ROUTE_MAPPING_CONTEXTS.has(context);
  };
  return {
    log(message: unknown, ...rest: unknown[]) {
      if (isRouteMapping(rest)) logger.verbose?.(message, ...rest);
      else logger.log(message, ...rest);
    },
    error(message: unknown, ...rest: unknown[]) {
      logger.error(message, ...rest);
    },
    warn(message: unknown, ...rest: unknown[]) {
      logger.warn(message, ...rest);
    },
    debug(message: unknown, ...rest: unknown[]) {
      logger.debug?.(message, ...rest);
    },
    verbose(message: unknown, ...rest: unknown[]) {
      logger.verbose?.(message, ...rest);
    },
    fatal(message: unknown, ...rest: unknown[]) {
      logger.fatal?.(message, ...rest);
    },
    setLogLevels(levels) {
      logger.setLogLevels?.(levels);
    },
  };
}
