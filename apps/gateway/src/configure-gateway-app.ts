import type { NestExpressApplication } from '@nestjs/platform-express';
import { MAX_REQUEST_BODY_BYTES } from '@openwop/contracts';
import { json, text, type NextFunction, type Request, type Response } from 'express';
import {
  JSON_MEDIA_TYPE,
  refuseUnsupportedMediaTypes,
  verifyJsonDepth,
  YAML_MEDIA_TYPES,
} from './common/body-intake';
import { ErrorEnvelopeFilter } from './common/error-envelope.filter';
import { protocolNegotiation } from './common/protocol-negotiation.middleware';
import { answerClientErrors } from './common/client-error.handler';
import { rejectUnstorableText } from './common/unstorable-text';
import { fromBodyParser } from './common/error-response.mapper';
import { httpTelemetry } from './observability/http-telemetry.middleware';

export { YAML_MEDIA_TYPES } from './common/body-intake';

/** Options of {@link configureGatewayApp}. */
export interface GatewayAppOptions {
  /** Let Nest handle SIGTERM/SIGINT (`app.enableShutdownHooks()`); default false. */
  readonly enableShutdownHooks?: boolean;
}

/**
 * Applies the gateway's HTTP settings to an app that imports {@link GatewayModule}; both the
 * distributed `main.ts` and the embedded launcher call it before `listen`:
 * - case-sensitive routing: `/v1/runs` is served, `/V1/RUNS` is not (`404 not_found`),
 *   so a route has one spelling and what the router matched is what a log records
 *   (ADR 0015). Nest creates the Express router in `NestFactory.create`, before this runs, and the
 *   router reads its flag when each route is registered (at `init`), so the flag is set on it here;
 *   a route registered before that would keep the old rule, which throws;
 * - telemetry first (`observability/http-telemetry.middleware.ts`): each request's trace context,
 *   `http.server.request.duration` and one access log line, refused requests included;
 * - then major negotiation (`common/protocol-negotiation.middleware.ts`, ADR 0041): `OpenWOP-Version`
 *   checked (`406`/`400`) and set on every protocol response; an unversioned path is routed to its
 *   `/v1/…` twin's controller under major 2, so the route table stays the one list of operations;
 * - one intake for bodies (`common/body-intake.ts`), before any parser: a body in a media type
 *   the route does not take (anything but JSON; YAML too on `POST /v1/workflows`) is `415`, so the
 *   framework's default URL-encoded parser never sees one; JSON up to 1 MiB
 *   (`MAX_REQUEST_BODY_BYTES`) nested at most `MAX_JSON_DEPTH` deep, measured on the raw bytes;
 *   malformed or too deep JSON is `400 validation_error`, too large `413`;
 * - the error-envelope filter for every error, including unknown routes (`404 not_found` on both
 *   path spaces);
 * - Nest's signal shutdown hooks only when `options.enableShutdownHooks` is set: the launchers
 *   (`main.ts`, the embedded host) handle SIGTERM themselves — `app.close()` then
 *   `platform.close()` — and Nest's hooks would race them by re-raising the signal. Either way
 *   `app.close()` ends open SSE streams and long polls before the server closes.
 *
 * @returns the same app, for chaining.
 */
export function configureGatewayApp(
  app: NestExpressApplication,
  options: GatewayAppOptions = {},
): NestExpressApplication {
  app.disable('x-powered-by');
  routeCaseSensitively(app);
  app.use(httpTelemetry);
  app.use(protocolNegotiation);
  app.use(refuseUnsupportedMediaTypes);
  // `json`/`text` are the parsers Nest would add; registered here (named `jsonParser`, so Nest adds
  // no second one) with the depth check as `verify`, which runs on the raw bytes before parsing.
  app.use(json({ type: JSON_MEDIA_TYPE, limit: MAX_REQUEST_BODY_BYTES, verify: verifyJsonDepth }));
  app.use(text({ type: YAML_MEDIA_TYPES, limit: MAX_REQUEST_BODY_BYTES }));
  app.use((error: unknown, _req: Request, _res: Response, next: NextFunction) =>
    next(fromBodyParser(error) ?? error),
  );
  app.use(rejectUnstorableText);
  answerClientErrors(app.getHttpServer());
  app.useGlobalFilters(new ErrorEnvelopeFilter());
  if (options.enableShutdownHooks) app.enableShutdownHooks();
  return app;
}

/** See {@link configureGatewayApp}: routes match case-sensitively. */
function routeCaseSensitively(app: NestExpressApplication): void {
  const express = app.getHttpAdapter().getInstance() as {
    set(setting: string, value: boolean): void;
    router: { caseSensitive?: boolean; stack: readonly { route?: unknown }[] };
  };
  if (express.router.stack.some((layer) => layer.route !== undefined)) {
    throw new Error('configureGatewayApp must run before the routes are registered (before app.init/listen)');
  }
  express.set('case sensitive routing', true);
  express.router.caseSensitive = true;
}
