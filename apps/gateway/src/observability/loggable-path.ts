import { pathOfRoute, routeLiterals, shapeOfUnmatchedPath } from '@openwop/observability';
import type { Application, Request } from 'express';

interface RouterLayer {
  readonly route?: { readonly path?: unknown };
}

/** The literal route segments of each app, read once from its router after the routes are registered. */
const literalsByApp = new WeakMap<Application, ReadonlySet<string>>();

/**
 * The route template the router matched for `req`, or `undefined` when none did: Nest's catch-all
 * not-found route (`/{*path}`) is no match.
 */
export function matchedRouteOf(req: Request): string | undefined {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.includes('*') ? path : undefined;
}

/**
 * The one path the gateway records for a request (access log, SERVER span, error log lines): built
 * from what the router matched, never from the raw URL (ADR 0015). A matched request gives its
 * template with its parameters filled in and every credential-named parameter (`:token`)
 * `[redacted]`; a request no route matched gives only the segments that are literal words of a
 * served route, the rest `*`.
 */
export function loggablePath(req: Request): string {
  const route = matchedRouteOf(req);
  if (route !== undefined) return pathOfRoute(route, req.params ?? {});
  return shapeOfUnmatchedPath(req.originalUrl ?? req.url ?? '/', literalsOf(req.app));
}

function literalsOf(app: Application | undefined): ReadonlySet<string> {
  if (!app) return new Set();
  const cached = literalsByApp.get(app);
  if (cached) return cached;
  const stack = (app as unknown as { router?: { stack?: readonly RouterLayer[] } }).router?.stack ?? [];
  const templates = stack.flatMap((layer) =>
    typeof layer.route?.path === 'string' ? [layer.route.path] : [],
  );
  const literals = routeLiterals(templates);
  // Before the routes are registered there is nothing to keep yet; read again on the next request.
  if (templates.length > 0) literalsByApp.set(app, literals);
  return literals;
}
