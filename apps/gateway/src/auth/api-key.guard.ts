import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/api.error';
import { API_KEY_REGISTRY } from '../gateway.di-tokens';
import type { ApiKeyRegistry } from './api-key.registry';
import { parseBearerToken } from './bearer-token.parser';
import type { AuthenticatedRequest } from './caller.decorator';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './require-scope.decorator';

/**
 * Authenticates every HTTP route not marked {@link Public} (auth.md §API keys): a missing,
 * malformed or unknown key is `401 unauthenticated`; a key without one of the route's
 * {@link RequireScope} scopes is `403 forbidden` with `details.scopeRequired`.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_REGISTRY) private readonly registry: ApiKeyRegistry,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = parseBearerToken(request.headers.authorization);
    if (token === undefined) {
      throw new ApiError(
        'unauthenticated',
        'Missing or malformed Authorization header; expected "Bearer <api key>".',
      );
    }
    const caller = this.registry.verify(token);
    if (!caller) throw new ApiError('unauthenticated', 'The API key is not valid.');
    request.caller = caller;
    const required = this.reflector.getAllAndOverride<readonly string[] | undefined>(REQUIRED_SCOPE, targets);
    const scope = required?.find((s) => !caller.scopes.has(s));
    if (scope !== undefined) {
      throw new ApiError('forbidden', `This operation requires the ${scope} scope.`, {
        scopeRequired: scope,
      });
    }
    return true;
  }
}
