import { Controller, Get, Req, Res } from '@nestjs/common';
import { currentTelemetry } from '@openwop/observability';
import type { Request, Response } from 'express';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';

/**
 * `GET /metrics`: the Prometheus scrape of this process (in the embedded mode, of every app). Served
 * without credentials, like any Prometheus target (docs/adr/0010-observability.md); with
 * `METRICS_PORT` set the gateway serves it on that listener only, and here answers `404`.
 */
@Controller()
@Public()
export class MetricsController {
  @Get('/metrics')
  metrics(@Req() req: Request, @Res() res: Response): void {
    const telemetry = currentTelemetry();
    if (!telemetry || process.env.METRICS_PORT?.trim()) throw ApiError.notFound('No route GET /metrics.');
    telemetry.metricsHandler(req, res);
  }
}
