import type { INestApplication } from '@nestjs/common';
import { openApiPathOf } from './openapi.document';

/** One route the HTTP server really dispatches: upper-case method and OpenAPI path template. */
export interface ServedRoute {
  readonly method: string;
  readonly path: string;
}

interface RouterLayer {
  readonly route?: { readonly path: unknown; readonly methods: Readonly<Record<string, boolean>> };
}

/**
 * The routes an initialized Nest app's Express router dispatches (its route layers, not Nest's
 * metadata), as OpenAPI templates, less the catch-all not-found handler: what a test holds the route table and the OpenAPI document to.
 * @throws when the adapter is not Express 5 (no `router.stack` to read).
 */
export function servedRoutes(app: INestApplication): ServedRoute[] {
  const instance = app.getHttpAdapter().getInstance() as { router?: { stack?: readonly RouterLayer[] } };
  const stack = instance.router?.stack;
  if (!stack) throw new Error('servedRoutes needs the Express 5 adapter (router.stack)');
  const routes: ServedRoute[] = [];
  for (const layer of stack) {
    if (!layer.route || typeof layer.route.path !== 'string') continue;
    // Nest's not-found handler (`/{*path}`, every method) answers what no route serves.
    if (layer.route.path.includes('*')) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && method !== '_all')
        routes.push({ method: method.toUpperCase(), path: openApiPathOf(layer.route.path) });
    }
  }
  return routes;
}
