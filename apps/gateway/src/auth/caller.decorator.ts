import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Caller } from './api-key.registry';

/** A request the {@link ApiKeyGuard} authenticated. */
export interface AuthenticatedRequest extends Request {
  caller?: Caller;
}

/**
 * Injects the authenticated {@link Caller}. Only valid on routes behind the API-key guard.
 *
 * @throws Error when used on a public route (a programming error, answered as 500).
 */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const caller = ctx.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new Error('CurrentCaller used on a route without authentication');
  return caller;
});
