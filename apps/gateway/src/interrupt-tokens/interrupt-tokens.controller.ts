import { Body, Controller, Get, HttpCode, Param, Post, UseFilters } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiGoneResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { InspectTokenResult, ResolveInterruptResult } from '@openwop/contracts';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { assertResumeValueWithinLimits } from '../common/resume-value.limits';
import { InterruptTokenHandler } from './interrupt-token.handler';
import { TokenRouteErrorFilter } from './token-route-error.filter';

/**
 * The signed-token surface (`rest-endpoints.md` §HITL, RFC 0093): no API key, the token is the
 * authority. `GET /v1/interrupts/{token}` inspects; `POST` resolves with `{resumeValue}` or with
 * the resume value itself as the body. The token service decides every refusal.
 */
@ApiTags('interrupts')
@Public()
@UseFilters(TokenRouteErrorFilter)
@ApiBadRequestResponse({ description: 'The token is malformed (`validation_error`).' })
@ApiNotFoundResponse({
  description: 'Forged, unknown-key or unknown-interrupt token (`interrupt_not_found`).',
})
@ApiGoneResponse({ description: 'The token expired (`interrupt_expired`).' })
@ApiConflictResponse({
  description: 'The interrupt was resolved or its run ended (`interrupt_already_resolved`).',
})
@Controller()
export class InterruptTokensController {
  constructor(private readonly handler: InterruptTokenHandler) {}

  @Get('/v1/interrupts/:token')
  @ApiOkResponse({
    description:
      'The pending interrupt: runId, nodeId, interruptId, kind, key, data, requestedAt, expiresAt, intent.',
  })
  inspect(@Param('token') token: string): Promise<InspectTokenResult> {
    return this.handler.inspect(token);
  }

  @Post('/v1/interrupts/:token')
  @HttpCode(200)
  @ApiOkResponse({
    description:
      '`status: resolved` — the node resumes; `pending` — recorded (ask, or a vote short of quorum).',
  })
  @ApiForbiddenResponse({ description: 'An inspect-only token cannot resolve (`forbidden`).' })
  resolve(@Param('token') token: string, @Body() body: unknown): Promise<ResolveInterruptResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw ApiError.validation('The body must be a JSON object.', [
        { path: '', message: 'must be an object' },
      ]);
    }
    const value = body as Record<string, unknown>;
    const resumeValue = Object.hasOwn(value, 'resumeValue') ? value.resumeValue : value;
    assertResumeValueWithinLimits(resumeValue);
    return this.handler.resolve(token, resumeValue);
  }
}
