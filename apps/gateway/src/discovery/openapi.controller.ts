import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { sendValidatedJson, validatedJson } from './conditional-get';
import { multiPartySeamEnabled } from '../host-sample/test-seams.config';
import { servedGatewayRoutes } from './gateway-routes.constants';
import { buildOpenApiDocument } from './openapi.document';

/** `GET /v1/openapi.json`: this host's OpenAPI 3.1 document (built from the route table), served without credentials. */
@ApiExcludeController()
@Controller()
@Public()
export class OpenApiController {
  private readonly document = validatedJson(buildOpenApiDocument(servedGatewayRoutes(multiPartySeamEnabled())));

  @Get('/v1/openapi.json')
  openapi(@Req() req: Request, @Res() res: Response): void {
    sendValidatedJson(req, res, this.document, { cacheControl: 'public, max-age=300' });
  }
}
