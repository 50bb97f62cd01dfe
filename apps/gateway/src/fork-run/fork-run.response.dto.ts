import type { ForkMode } from '@openwop/contracts';

/** Body of `201 Created` from `POST /v1/runs/{runId}:fork` (documented in the route table, `forkRun`). */
export interface ForkRunResponseDto {
  readonly runId: string;
  readonly sourceRunId: string;
  readonly fromSeq: number;
  readonly mode: ForkMode;
  readonly status: string;
  readonly eventsUrl: string;
}
