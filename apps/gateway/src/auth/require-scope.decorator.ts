import { SetMetadata } from '@nestjs/common';
import type { Scope } from './scopes.constants';

/** Metadata key of the scopes a route requires (all of them). */
export const REQUIRED_SCOPE = 'openwop:required-scope';
/** Metadata key marking a route that needs no credentials. */
export const PUBLIC_ROUTE = 'openwop:public-route';

/**
 * The route needs `Authorization: Bearer <key>` and a key holding every scope given; otherwise `401
 * unauthenticated` or `403 forbidden` (with `details.scopeRequired`, the first one missing).
 *
 * @example
 * ```ts
 * @Get('/v1/runs/:runId')
 * @RequireScope('runs:read')
 * getRun(...) {}
 * ```
 */
export function RequireScope(...scopes: [Scope, ...Scope[]]): MethodDecorator & ClassDecorator {
  return SetMetadata(REQUIRED_SCOPE, scopes);
}

/** The route is served without credentials (health, discovery, the OpenAPI document). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(PUBLIC_ROUTE, true);
}
