import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { ErrorEnvelopeFilter } from './common/error-envelope.filter';
import { answerClientErrors } from './common/client-error.handler';
import { rejectUnstorableText } from './common/unstorable-text';
import { fromBodyParser } from './common/error-response.mapper';
import { IMPLEMENTATION, MAX_REQUEST_BODY_BYTES } from './discovery/discovery.document';
import { OpenApiDocumentHolder } from './discovery/openapi-document.holder';

/** Media types of YAML request bodies (`POST /v1/workflows`); read as text, parsed by the controller. */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** Options of {@link configureGatewayApp}. */
export interface GatewayAppOptions {
  /** Let Nest handle SIGTERM/SIGINT (`app.enableShutdownHooks()`); default false. */
  readonly enableShutdownHooks?: boolean;
}

/**
 * Applies the gateway's HTTP settings to an app that imports {@link GatewayModule}; both the
 * distributed `main.ts` and the embedded launcher call it before `listen`:
 * - JSON bodies up to 1 MiB; malformed JSON is `400 validation_error`, too large `413`;
 * - the error-envelope filter for every error, including unknown routes (`404 not_found`, or
 *   `400` for paths outside a version root);
 * - the OpenAPI document behind `GET /v1/openapi.json`;
 * - Nest's signal shutdown hooks only when `options.enableShutdownHooks` is set: the launchers
 *   (`main.ts`, the embedded host) handle SIGTERM themselves — `app.close()` then
 *   `platform.close()` — and Nest's hooks would race them by re-raising the signal. Either way
 *   `app.close()` ends open SSE streams and long polls before the server closes.
 *
 * @returns the same app, for chaining.
 */
export function configureGatewayApp(app: NestExpressApplication, options: GatewayAppOptions = {}): NestExpressApplication {
  app.disable('x-powered-by');
  app.useBodyParser('json', { limit: MAX_REQUEST_BODY_BYTES });
  app.useBodyParser('text', { type: YAML_MEDIA_TYPES, limit: MAX_REQUEST_BODY_BYTES });
  app.use((error: unknown, _req: Request, _res: Response, next: NextFunction) => next(fromBodyParser(error) ?? error));
  app.use(rejectUnstorableText);
  answerClientErrors(app.getHttpServer());
  app.useGlobalFilters(new ErrorEnvelopeFilter());
  if (options.enableShutdownHooks) app.enableShutdownHooks();
  const config = new DocumentBuilder()
    .setTitle('OpenWOP host')
    .setDescription('OpenWOP v1 REST + SSE surface of this host (the spec: api/openapi.yaml).')
    .setVersion(IMPLEMENTATION.version)
    .addBearerAuth()
    .build();
  app.get(OpenApiDocumentHolder).set(SwaggerModule.createDocument(app, config));
  return app;
}
