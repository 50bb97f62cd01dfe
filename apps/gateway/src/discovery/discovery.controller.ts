import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/require-scope.decorator';
import { buildDiscoveryDocument } from './discovery.document';

/** `GET /.well-known/openwop`: the capability declaration, served without credentials. */
@ApiTags('discovery')
@Controller()
@Public()
export class DiscoveryController {
  private readonly document = buildDiscoveryDocument();

  @Get('/.well-known/openwop')
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOkResponse({ description: 'Capabilities document (capability families at the root).' })
  discovery(): Record<string, unknown> {
    return this.document;
  }
}
