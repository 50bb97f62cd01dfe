import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { MAX_ID_LENGTH, type ResolveInterruptResult } from '@openwop/contracts';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { RequestMajor } from '../common/protocol-negotiation.middleware';
import type { ProtocolMajor } from '../common/protocol-version';
import { resolveBodyOf } from '../common/resolve-body';
import { ResolveInterruptHandler } from './resolve-interrupt.handler';

/**
 * `POST /v1/runs/{runId}/interrupts/{nodeId}` with `{resumeValue}` (the spec's shape), or the
 * resume value itself as the body (what conformance clients send for approvals: `{action}`);
 * under major 2 (`POST /runs/{runId}/interrupts/{nodeId}`) only the closed `{resumeValue}`
 * (`resolveBodyOf`); and the legacy `POST /v1/runs/{runId}/approvals/{nodeId}` whose body is the approval decision.
 */
/** Express path of `POST /v1/runs/{runId}:resolveInterrupt` (the colon escaped). */
export const RESOLVE_INTERRUPT_ROUTE = '/v1/runs/:runId\\:resolveInterrupt';

@Controller()
export class ResolveInterruptController {
  constructor(private readonly handler: ResolveInterruptHandler) {}

  @Post('/v1/runs/:runId/interrupts/:nodeId')
  @HttpCode(200)
  @RequireScope('approvals:respond')
  resolve(
    @Param('runId') runId: string,
    @Param('nodeId') nodeId: string,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
    @RequestMajor() major: ProtocolMajor,
  ): Promise<ResolveInterruptResult> {
    const { resumeValue } = resolveBodyOf(body, major);
    return this.handler.handle(runId, nodeId, resumeValue, 'api', caller);
  }

  /**
   * `POST /v1/runs/{runId}:resolveInterrupt` (RFC 0005 §D/E): the body is a `ConversationResolve`
   * (`{operation, turn, outcome}`) or `{resumeValue}`, plus `nodeId` when the run waits on more
   * than one node; without it, the node the run is waiting on. Under major 2 the body is the closed
   * `{resumeValue, nodeId?}`.
   */
  @Post(RESOLVE_INTERRUPT_ROUTE)
  @HttpCode(200)
  @RequireScope('approvals:respond')
  async resolveRunScoped(
    @Param('runId') runId: string,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
    @RequestMajor() major: ProtocolMajor,
  ): Promise<ResolveInterruptResult> {
    const { nodeId, resumeValue: explicit, ...rest } = resolveBodyOf(body, major, ['nodeId']).fields;
    if (
      nodeId !== undefined &&
      (typeof nodeId !== 'string' || nodeId === '' || nodeId.length > MAX_ID_LENGTH)
    ) {
      throw ApiError.validation('nodeId must be a non-empty string.', [
        { path: '/nodeId', message: `must be a string of 1..${MAX_ID_LENGTH} characters` },
      ]);
    }
    const target = nodeId ?? (await this.handler.waitingNodeOf(runId, caller));
    const resumeValue = explicit !== undefined ? explicit : rest;
    return this.handler.handle(runId, target, resumeValue, 'api', caller);
  }

  @Post('/v1/runs/:runId/approvals/:nodeId')
  @HttpCode(200)
  @RequireScope('approvals:respond')
  approve(
    @Param('runId') runId: string,
    @Param('nodeId') nodeId: string,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
    @RequestMajor() major: ProtocolMajor,
  ): Promise<ResolveInterruptResult> {
    // Under major 2 the legacy alias takes the closed body too; its value is the decision.
    const { fields, resumeValue } = resolveBodyOf(body, major);
    return this.handler.handle(runId, nodeId, major === 2 ? resumeValue : fields, 'legacy-approvals', caller);
  }
}
