import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { RequestMajor } from '../common/protocol-negotiation.middleware';
import type { ProtocolMajor } from '../common/protocol-version';
import { v2Routes } from './discovery-v2.document';
import { sendValidatedJson, validatedJson } from './conditional-get';
import { multiPartySeamEnabled } from '../host-sample/test-seams.config';
import { servedGatewayRoutes } from './gateway-routes.constants';
import { buildOpenApiDocument } from './openapi.document';

/**
 * `GET /v1/openapi.json`: this host's OpenAPI 3.1 document (built from the route table), served
 * without credentials; under major 2 (`GET /openapi.json`) the same operations on their unversioned
 * paths (ADR 0041).
 */
@Controller()
@Public()
export class OpenApiController {
  private readonly document = validatedJson(
    buildOpenApiDocument(servedGatewayRoutes(multiPartySeamEnabled())),
  );
  private readonly v2 = validatedJson(
    v2OpenApiDocument(buildOpenApiDocument(v2Routes(servedGatewayRoutes(multiPartySeamEnabled())))),
  );

  @Get('/v1/openapi.json')
  openapi(@Req() req: Request, @Res() res: Response, @RequestMajor() major: ProtocolMajor): void {
    sendValidatedJson(req, res, major === 2 ? this.v2 : this.document, {
      cacheControl: 'public, max-age=300',
    });
  }
}

function v2OpenApiDocument(document: Record<string, unknown>): Record<string, unknown> {
  const info = document.info as Record<string, unknown>;
  return {
    ...document,
    info: {
      ...info,
      summary:
        'OpenWOP v2 surface of this host: the v1 operations on their unversioned paths (OpenWOP-Version: 2).',
    },
  };
}
