import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
  UseFilters,
} from '@nestjs/common';
import type { InspectTokenResult, ResolveInterruptResult } from '@openwop/contracts';
import type { Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { RequestMajor } from '../common/protocol-negotiation.middleware';
import type { ProtocolMajor } from '../common/protocol-version';
import { resolveBodyOf } from '../common/resolve-body';
import { assertResumeValueWithinLimits } from '../common/resume-value.limits';
import { createQueryValidationPipe } from '../common/validation.pipe';
import { DEFAULT_TURN_PAGE, GetConversationQueryDto } from '../get-conversation/get-conversation.query.dto';
import { prefersHtml } from '../link-page/accept-negotiation';
import { LINK_PAGE_SECURITY_HEADERS, loadLinkPageAssets } from '../link-page/link-page.assets';
import { InterruptTokenHandler, type LinkOutcome, type LinkTranscript } from './interrupt-token.handler';
import { TokenRouteErrorFilter } from './token-route-error.filter';

/**
 * The signed-token surface (`rest-endpoints.md` §HITL, RFC 0093): no API key, the token is the
 * authority. `GET /v1/interrupts/{token}` inspects; `POST` resolves with `{resumeValue}` or with
 * the resume value itself as the body. The token service decides every refusal.
 *
 * A browser opening a link (`Accept` naming `text/html`, see {@link prefersHtml}) gets the
 * approver's page instead of the JSON: a static page that reads the token from its own URL and
 * calls these same routes; any other client gets the JSON answer it always got. The page's two
 * reads besides inspect, `…/conversation` and `…/outcome`, are verified by the token service like
 * inspect and bound to the interrupt the token names (ADR 0026).
 */
@Public()
@UseFilters(TokenRouteErrorFilter)
@Controller()
export class InterruptTokensController {
  private readonly page = loadLinkPageAssets().get('index.html')!.body;

  constructor(private readonly handler: InterruptTokenHandler) {}

  @Get('/v1/interrupts/:token')
  inspect(
    @Param('token') token: string,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) res: Response,
    @Headers('openwop-version') version?: string,
  ): Promise<InspectTokenResult> | StreamableFile {
    // One URL, two representations: caches must key on Accept, and on OpenWOP-Version, whose
    // presence marks a protocol client that never gets the page (v2 versioning.md §1.4).
    res.setHeader('Vary', 'Accept, OpenWOP-Version');
    if (version === undefined && prefersHtml(accept)) {
      // The page holds no data: it reads the interrupt through this route with the token in its URL.
      res.set(LINK_PAGE_SECURITY_HEADERS);
      return new StreamableFile(this.page, { type: 'text/html; charset=utf-8', length: this.page.length });
    }
    return this.handler.inspect(token);
  }

  /** The live transcript of the conversation the token's interrupt holds (read-only, the signed-link page's). */
  @Get('/v1/interrupts/:token/conversation')
  transcript(
    @Param('token') token: string,
    @Query(createQueryValidationPipe()) query: GetConversationQueryDto,
  ): Promise<LinkTranscript> {
    return this.handler.transcript(token, query.after ?? -1, query.limit ?? DEFAULT_TURN_PAGE);
  }

  /** Where the token's interrupt stands: pending, answered (the link is used up) or its run ended. */
  @Get('/v1/interrupts/:token/outcome')
  outcome(@Param('token') token: string): Promise<LinkOutcome> {
    return this.handler.outcome(token);
  }

  @Post('/v1/interrupts/:token')
  @HttpCode(200)
  resolve(
    @Param('token') token: string,
    @Body() body: unknown,
    @RequestMajor() major: ProtocolMajor,
  ): Promise<ResolveInterruptResult> {
    // Under major 2 (`POST /interrupts/{token}`) the body is the closed `{resumeValue}`.
    const { resumeValue } = resolveBodyOf(body, major);
    assertResumeValueWithinLimits(resumeValue);
    return this.handler.resolve(token, resumeValue);
  }
}
