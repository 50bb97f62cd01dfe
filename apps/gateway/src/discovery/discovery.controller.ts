import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { RequestMajor } from '../common/protocol-negotiation.middleware';
import type { ProtocolMajor } from '../common/protocol-version';
import { sendValidatedJson, validatedJson } from './conditional-get';
import { multiPartySeamEnabled } from '../host-sample/test-seams.config';
import { buildV2DiscoveryDocument, versionAdvertisement } from './discovery-v2.document';
import { buildDiscoveryDocument } from './discovery.document';
import { servedGatewayRoutes } from './gateway-routes.constants';

/** How long clients and caches may keep the discovery document (capabilities.md §Endpoint). */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=300';

/**
 * `GET /.well-known/openwop`: the capability declaration, served without credentials, with a strong
 * `ETag` that a conditional request revalidates to `304` whatever its `Cache-Control` says. One
 * resource, two representations chosen by `OpenWOP-Version` (v2 capabilities.md §1; ADR 0041):
 * header-less or major 1, the v1 document with `protocolVersions` and `preferredVersion` added and
 * the `ETag` also as `Capabilities-Etag` (v1's capabilities-change-detection.md keeps it until v1
 * end of support); major 2, the closed v2 root, without `Capabilities-Etag` (v2 removed it).
 */
@Controller()
@Public()
export class DiscoveryController {
  private readonly v1 = validatedJson({
    ...buildDiscoveryDocument(undefined, servedGatewayRoutes(multiPartySeamEnabled())),
    ...versionAdvertisement(),
  });
  private readonly v2 = validatedJson(buildV2DiscoveryDocument());

  @Get('/.well-known/openwop')
  discovery(@Req() req: Request, @Res() res: Response, @RequestMajor() major: ProtocolMajor): void {
    res.setHeader('Vary', 'OpenWOP-Version');
    if (major === 2) sendValidatedJson(req, res, this.v2, { cacheControl: DISCOVERY_CACHE_CONTROL });
    else
      sendValidatedJson(req, res, this.v1, { cacheControl: DISCOVERY_CACHE_CONTROL, capabilitiesEtag: true });
  }
}
