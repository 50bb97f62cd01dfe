import { Controller, Get, Inject } from '@nestjs/common';
import { BUS, type Bus } from '@openwop/platform-bus';
import { checkPlatformReadiness, DATA_SOURCE, type PlatformReadiness } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';

/** Per-dependency budget of a readiness check. */
const CHECK_TIMEOUT_MS = 1_000;

/** Liveness and readiness probes; neither needs credentials. */
@Controller()
@Public()
export class HealthController {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  /** The process is up. */
  @Get('/healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * The bus answers and `SELECT 1` succeeds, each within 1 s (the check every process's metrics
   * listener serves as `/readyz` too, there with 2 s).
   *
   * @throws {@link ApiError} `unavailable` (503) with `details.checks` naming what is down.
   */
  @Get('/readyz')
  async readyz(): Promise<{ status: 'ready'; checks: PlatformReadiness['checks'] }> {
    const { ok, checks } = await checkPlatformReadiness(
      { bus: this.bus, dataSource: this.dataSource },
      CHECK_TIMEOUT_MS,
    );
    if (!ok) throw new ApiError('unavailable', 'The gateway is not ready.', { checks }, 1);
    return { status: 'ready', checks };
  }
}
