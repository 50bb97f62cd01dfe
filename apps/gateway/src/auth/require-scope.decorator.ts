import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Scope } from './scopes.constants';

/** Metadata key of the scope a route requires. */
export const REQUIRED_SCOPE = 'openwop:required-scope';
/** Metadata key marking a route that needs no credentials. */
export const PUBLIC_ROUTE = 'openwop:public-route';

/**
 * The route needs `Authorization: Bearer <key>` and a key holding `scope`; otherwise `401
 * unauthenticated` or `403 forbidden` (with `details.scopeRequired`).
 *
 * @example
 * ```ts
 * @Get('/v1/runs/:runId')
 * @RequireScope('runs:read')
 * getRun(...) {}
 * ```
 */
export function RequireScope(scope: Scope): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'Missing, malformed or unknown API key (`unauthenticated`).' }),
    ApiForbiddenResponse({ description: `The key lacks the \`${scope}\` scope (\`forbidden\`, \`details.scopeRequired\`).` }),
  );
}

/** The route is served without credentials (health, discovery, the OpenAPI document). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(PUBLIC_ROUTE, true);
}
