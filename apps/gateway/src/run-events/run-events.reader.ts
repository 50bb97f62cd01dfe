import { isTerminalRunStatus } from '@openwop/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { RunEventDoc } from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import { RunNotices, waitForRun } from '../runs/run-change.waiter';
import { ApiError } from '../common/api.error';
import { RunReadRepository, type RunRow } from '../runs/run-read.repository';
import { modeAdmits, type StreamMode } from './stream-mode.parser';

/** One page of a run's log, as `/events` (JSON) and `/events/poll` answer it. */
export interface RunEventPage {
  readonly events: readonly unknown[];
  /** The cursor to pass as `after` next time: the last sequence read (filtered-out events included). */
  readonly nextAfter: number;
  readonly runStatus: string;
  /** The run is terminal and this page reached the end of its log. */
  readonly isComplete: boolean;
}

/** Which events a page keeps: every event, or those the given stream modes admit. */
export type EventSelection = 'all' | readonly StreamMode[];

/** Re-read interval when no feed notice arrives during a long poll. */
const POLL_FALLBACK_MS = 250;

/**
 * Reads pages of a run's event log for the JSON and long-poll routes, applying the stream-mode
 * filter and, for `values`, synthesizing one `state.snapshot` event from the projected run.
 */
@Injectable()
export class RunEventsReader {
  constructor(
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  /**
   * The events after `after` (at most `limit` scanned) of the run, which must be visible to
   * `tenant`. When there are none yet, the run is not terminal and `waitMs > 0`, waits for the next
   * event up to `waitMs` (or until `signal` aborts). Each read takes the run and its events in one
   * statement, so the status answered matches the events.
   *
   * @throws {@link ApiError} `not_found` when the run is not visible.
   */
  async page(
    runId: string,
    tenant: string,
    after: number,
    selection: EventSelection,
    limit: number,
    waitMs = 0,
    signal?: AbortSignal,
  ): Promise<RunEventPage> {
    const read = () => this.runs.runWithEventsAfter(runId, tenant, after, limit);
    // A waiting poll watches before its first read, so it can wait right after it without a gap.
    const notices = waitMs > 0 ? new RunNotices(this.feed, runId, after + 1) : undefined;
    let found: Awaited<ReturnType<typeof read>>;
    try {
      found = await read();
      if (!found) throw ApiError.notFound(`Run ${runId} not found.`);
      if (notices && found.events.length === 0 && !isTerminalRunStatus(found.run.status)) {
        const waitOptions = {
          feed: this.feed,
          runId,
          timeoutMs: waitMs,
          fallbackMs: POLL_FALLBACK_MS,
          notices,
          ...(signal ? { signal } : {}),
        };
        found =
          (await waitForRun(waitOptions, async () => {
            const next = await read();
            return next && (next.events.length > 0 || isTerminalRunStatus(next.run.status))
              ? next
              : undefined;
          })) ?? found;
      }
    } finally {
      notices?.close();
    }
    const { run: current, events: scanned } = found;
    const nextAfter = scanned.at(-1)?.sequence ?? after;
    return {
      events: select(scanned, selection, current, after),
      nextAfter,
      runStatus: current.status,
      isComplete:
        isTerminalRunStatus(current.status) && scanned.length < limit && nextAfter >= current.lastSequence,
    };
  }
}

function select(
  scanned: readonly RunEventDoc[],
  selection: EventSelection,
  run: RunRow,
  after: number,
): unknown[] {
  if (selection === 'all') return [...scanned];
  if (selection.includes('values')) {
    return scanned.some((e) => modeAdmits('values', e.type)) || (scanned.length > 0 && after < 0)
      ? [snapshotEvent(run)]
      : [];
  }
  return scanned.filter((e) => selection.some((mode) => modeAdmits(mode, e.type)));
}

/**
 * The synthesized `state.snapshot` event of `values` mode: the run's current `RunSnapshot` as
 * payload, numbered with the last projected sequence it reflects.
 */
export function snapshotEvent(run: RunRow): RunEventDoc<Record<string, unknown>> {
  const updatedAt = run.snapshot.updatedAt;
  return {
    eventId: `${run.runId}:state.snapshot:${run.lastSequence}`,
    runId: run.runId,
    type: 'state.snapshot' as RunEventDoc['type'],
    payload: run.snapshot,
    timestamp: typeof updatedAt === 'string' ? updatedAt : new Date().toISOString(),
    sequence: run.lastSequence,
  };
}
