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
 * paths (ADR 0041), with the v2 `Idempotency-Key` grammar on every mutating operation.
 */
@Controller()
@Public()
export class OpenApiController {
  private readonly document = validatedJson(openApiDocuments(multiPartySeamEnabled()).v1);
  private readonly v2 = validatedJson(openApiDocuments(multiPartySeamEnabled()).v2);

  @Get('/v1/openapi.json')
  openapi(@Req() req: Request, @Res() res: Response, @RequestMajor() major: ProtocolMajor): void {
    sendValidatedJson(req, res, major === 2 ? this.v2 : this.document, {
      cacheControl: 'public, max-age=300',
    });
  }
}

/** The two representations of the OpenAPI document: v1's, and major 2's (unversioned paths, v2 key grammar). */
export function openApiDocuments(testSeams: boolean): {
  v1: Record<string, unknown>;
  v2: Record<string, unknown>;
} {
  return {
    v1: buildOpenApiDocument(servedGatewayRoutes(testSeams)),
    v2: v2OpenApiDocument(buildOpenApiDocument(v2Routes(servedGatewayRoutes(testSeams)), 2)),
  };
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
