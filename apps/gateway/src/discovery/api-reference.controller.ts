import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { loadReferenceAssets, REFERENCE_SECURITY_HEADERS, type ReferenceAsset } from './api-reference.assets';

/** `GET /docs`: the API reference page (Swagger UI over `/v1/openapi.json`), public like the document it renders. */
@Controller()
@Public()
export class ApiReferenceController {
  private readonly assets: ReadonlyMap<string, ReferenceAsset> = loadReferenceAssets();

  @Get('/docs')
  page(@Res() res: Response): void {
    this.send(res, this.assets.get('index.html')!);
  }

  /** @throws {@link ApiError} `not_found` for any name outside the fixed list. */
  @Get('/docs/:asset')
  asset(@Param('asset') name: string, @Res() res: Response): void {
    const asset = name === 'index.html' ? undefined : this.assets.get(name);
    if (!asset) throw ApiError.notFound(`No reference asset ${name}`);
    this.send(res, asset);
  }

  private send(res: Response, asset: ReferenceAsset): void {
    res
      .status(200)
      .set({ ...REFERENCE_SECURITY_HEADERS, 'Content-Type': asset.contentType })
      .send(asset.body);
  }
}
