import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { MultiPartySeamHandler, type CouncilOpened, type TurnAccepted } from './multi-party-seam.handler';

/** Paths of the seam (host-sample-test-seams.md §Multi-party conversation seam). */
export const MULTI_PARTY_OPEN_PATH = '/v1/host/sample/conversation/multi-party/open';
export const MULTI_PARTY_EXCHANGE_PATH = '/v1/host/sample/conversation/multi-party/exchange';

/**
 * The conformance-only multi-party conversation seam (RFC 0101 §Conformance), mounted only when
 * `multiPartySeamEnabled()` holds. `open` needs `runs:create` (it starts a run in the caller's
 * tenant), `exchange` needs `approvals:respond` (it answers that run's conversation interrupt).
 */
@Controller()
export class MultiPartySeamController {
  constructor(private readonly handler: MultiPartySeamHandler) {}

  @Post(MULTI_PARTY_OPEN_PATH)
  @HttpCode(200)
  @RequireScope('runs:create')
  open(@Body() body: unknown, @CurrentCaller() caller: Caller): Promise<CouncilOpened> {
    return this.handler.open(body, caller);
  }

  @Post(MULTI_PARTY_EXCHANGE_PATH)
  @HttpCode(200)
  @RequireScope('approvals:respond')
  exchange(@Body() body: unknown, @CurrentCaller() caller: Caller): Promise<TurnAccepted> {
    return this.handler.exchange(body, caller);
  }
}
