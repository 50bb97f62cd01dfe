import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { BUS, type Bus } from '@openwop/platform-bus';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { withTimeout } from '../common/with-timeout.util';

/** Per-dependency budget of a readiness check. */
const CHECK_TIMEOUT_MS = 1_000;

type CheckState = 'up' | 'down';

/** Liveness and readiness probes; neither needs credentials. */
@ApiTags('health')
@Controller()
@Public()
export class HealthController {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  /** The process is up. */
  @Get('/healthz')
  @ApiOkResponse({ description: '`{status: "ok"}`' })
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * The bus answers and `SELECT 1` succeeds, each within 1 s.
   *
   * @throws {@link ApiError} `unavailable` (503) with `details.checks` naming what is down.
   */
  @Get('/readyz')
  @ApiOkResponse({ description: '`{status: "ready", checks: {bus: "up", database: "up"}}`' })
  @ApiServiceUnavailableResponse({ description: '`unavailable` with `details.checks`.' })
  async readyz(): Promise<{ status: 'ready'; checks: Record<string, CheckState> }> {
    const [bus, database] = await Promise.all([
      check(async () => (await this.bus.healthy()) === true),
      check(async () => {
        await this.dataSource.query('SELECT 1');
        return true;
      }),
    ]);
    const checks = { bus, database };
    if (bus === 'down' || database === 'down') throw new ApiError('unavailable', 'The gateway is not ready.', { checks }, 1);
    return { status: 'ready', checks };
  }
}

async function check(probe: () => Promise<boolean>): Promise<CheckState> {
  try {
    return (await withTimeout(probe(), CHECK_TIMEOUT_MS, 'check timed out')) ? 'up' : 'down';
  } catch {
    return 'down';
  }
}
