import { Controller, Get, Headers, Inject, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { ApiKeyRegistry, Caller } from '../auth/api-key.registry';
import { parseBearerToken } from '../auth/bearer-token.parser';
import { CurrentCaller } from '../auth/caller.decorator';
import { Public, RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { API_KEY_REGISTRY } from '../gateway.di-tokens';
import { OAuthConnectHandler, type CallbackQuery, type ConnectOutcome } from './oauth-connect.handler';

/**
 * The two host-owned pages of a `credential` interrupt (RFC 0199 §C.3; ADR 0044):
 * - `GET /oauth/connect/{runId}/{nodeId}`, the interrupt's `connectUrl`: not pre-authenticated; it
 *   needs the run principal's key and answers `302` to the provider's authorization endpoint;
 * - `GET /oauth/callback/{providerId}`, the provider's fixed redirect URI: the `state` is the
 *   authority; a request that also authenticates must authenticate as the Subject the state is bound to.
 */
@Controller()
export class OAuthConnectController {
  constructor(
    private readonly handler: OAuthConnectHandler,
    @Inject(API_KEY_REGISTRY) private readonly registry: ApiKeyRegistry,
  ) {}

  @Get('/oauth/connect/:runId/:nodeId')
  @RequireScope('approvals:respond')
  async connect(
    @Param('runId') runId: string,
    @Param('nodeId') nodeId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ConnectOutcome | undefined> {
    return answer(await this.handler.connect(runId, nodeId, caller), res);
  }

  @Get('/oauth/callback/:providerId')
  @Public()
  async callback(
    @Param('providerId') providerId: string,
    @Query() query: Record<string, unknown>,
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ConnectOutcome | undefined> {
    let authenticated: Caller | undefined;
    if (authorization !== undefined) {
      const key = parseBearerToken(authorization);
      authenticated = key === undefined ? undefined : this.registry.verify(key);
      if (!authenticated)
        throw new ApiError('unauthenticated', 'The Authorization header does not name a valid key.');
    }
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const q: CallbackQuery = {
      ...(text(query.code) !== undefined ? { code: text(query.code) } : {}),
      ...(text(query.state) !== undefined ? { state: text(query.state) } : {}),
      ...(text(query.iss) !== undefined ? { iss: text(query.iss) } : {}),
      ...(text(query.error) !== undefined ? { error: text(query.error) } : {}),
    };
    return answer(await this.handler.callback(providerId, q, authenticated), res);
  }
}

/** A redirect as `302` with `Location` and no body; an outcome as its JSON. */
function answer(outcome: ConnectOutcome, res: Response): ConnectOutcome | undefined {
  if ('redirect' in outcome) {
    res.status(302).setHeader('Location', outcome.redirect);
    res.setHeader('Cache-Control', 'no-store');
    return undefined;
  }
  res.status(200);
  return outcome;
}
