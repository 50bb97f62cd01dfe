import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { ADMIN_SECURITY_HEADERS, loadAdminAssets, type AdminAsset } from './admin-assets';

/**
 * `GET /admin`: the operator page (pending interrupts, approval, clarification and conversation
 * views). The page and its files are public; they hold no data. The page asks for an API key, keeps
 * it in `sessionStorage` and sends it as `Authorization: Bearer` on every API call, so everything it
 * shows or changes goes through the same auth and scopes as any client.
 */
@Controller()
@Public()
export class AdminPageController {
  private readonly assets: ReadonlyMap<string, AdminAsset> = loadAdminAssets();

  @Get('/admin')
  page(@Res() res: Response): void {
    this.send(res, 'index.html');
  }

  /** @throws {@link ApiError} `not_found` for any name outside the fixed list. */
  @Get('/admin/assets/:name')
  asset(@Param('name') name: string, @Res() res: Response): void {
    if (name === 'index.html' || !this.assets.has(name)) throw ApiError.notFound(`No admin asset ${name}`);
    this.send(res, name);
  }

  private send(res: Response, name: string): void {
    const asset = this.assets.get(name);
    if (!asset) throw ApiError.notFound(`No admin asset ${name}`);
    res
      .status(200)
      .set({ ...ADMIN_SECURITY_HEADERS, 'Content-Type': asset.contentType })
      .send(asset.body);
  }
}
