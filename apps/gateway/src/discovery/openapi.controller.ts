import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags, type OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { OpenApiDocumentHolder } from './openapi-document.holder';

/** `GET /v1/openapi.json`: this host's own OpenAPI document, served without credentials. */
@ApiTags('discovery')
@Controller()
@Public()
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  /** @throws {@link ApiError} `unavailable` when the app was started without {@link configureGatewayApp}. */
  @Get('/v1/openapi.json')
  @ApiOkResponse({ description: 'The OpenAPI document.' })
  openapi(): OpenAPIObject {
    const document = this.holder.document;
    if (!document) throw new ApiError('unavailable', 'The OpenAPI document was not built (configureGatewayApp was not called).');
    return document;
  }
}
