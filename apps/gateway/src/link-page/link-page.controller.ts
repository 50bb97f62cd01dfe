import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { LINK_PAGE_SECURITY_HEADERS, loadLinkPageAssets, type LinkPageAsset } from './link-page.assets';

/**
 * `GET /link/assets/{name}`: the script and style files of the page a browser gets at a signed link
 * (`GET /v1/interrupts/{token}` with `Accept: text/html`, served by the token routes). Public: they
 * hold no data; the page reads everything through the token routes with the token of its own URL.
 */
@Controller()
@Public()
export class LinkPageController {
  private readonly assets: ReadonlyMap<string, LinkPageAsset> = loadLinkPageAssets();

  /** @throws {@link ApiError} `not_found` for any name outside the fixed list. */
  @Get('/link/assets/:name')
  asset(@Param('name') name: string, @Res() res: Response): void {
    const asset = name === 'index.html' ? undefined : this.assets.get(name);
    if (!asset) throw ApiError.notFound(`No link page asset ${name}`);
    res
      .status(200)
      .set({ ...LINK_PAGE_SECURITY_HEADERS, 'Content-Type': asset.contentType })
      .send(asset.body);
  }
}
