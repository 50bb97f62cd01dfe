import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { sendValidatedJson, validatedJson } from './conditional-get';
import { multiPartySeamEnabled } from '../host-sample/test-seams.config';
import { buildDiscoveryDocument } from './discovery.document';
import { servedGatewayRoutes } from './gateway-routes.constants';

/** How long clients and caches may keep the discovery document (capabilities.md §Endpoint). */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=300';

/**
 * `GET /.well-known/openwop`: the capability declaration, served without credentials, with a strong
 * `ETag` (also as `Capabilities-Etag`, capabilities-change-detection.md) that a conditional request
 * revalidates to `304` whatever its `Cache-Control` says.
 */
@ApiTags('discovery')
@Controller()
@Public()
export class DiscoveryController {
  private readonly document = validatedJson(buildDiscoveryDocument(undefined, servedGatewayRoutes(multiPartySeamEnabled())));

  @Get('/.well-known/openwop')
  discovery(@Req() req: Request, @Res() res: Response): void {
    sendValidatedJson(req, res, this.document, { cacheControl: DISCOVERY_CACHE_CONTROL, capabilitiesEtag: true });
  }
}
