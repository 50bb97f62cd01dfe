import { Inject, Injectable, Logger } from '@nestjs/common';
import { TERMINAL_RUN_EVENT_TYPES, type RunEventDoc, isTerminalRunStatus } from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Response } from 'express';
import { RunNotices } from '../runs/run-change.waiter';
import { RunReadRepository, type RunRow } from '../runs/run-read.repository';
import { ShutdownSignal } from '../runs/shutdown-signal.service';
import { snapshotEvent } from './run-events.reader';
import { frameSinkFor, type SseFrameSink } from './sse-frame.sink';
import { SseWriter } from './sse.writer';
import {
  admittingMode,
  MESSAGE_CHUNK_EVENT,
  messageChunkOf,
  modeAdmits,
  type StreamMode,
} from './stream-mode.parser';

/** Comment interval that keeps proxies from closing an idle stream (spec: at most 30 s). */
export const KEEPALIVE_MS = 15_000;

/**
 * The keep-alive interval: `SSE_KEEPALIVE_MS` (an integer from 1 to 30000), else {@link KEEPALIVE_MS}.
 *
 * @throws Error when the variable is set to anything else (the host refuses to start).
 */
export function keepaliveMsFrom(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.SSE_KEEPALIVE_MS;
  if (raw === undefined || raw === '') return KEEPALIVE_MS;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > 30_000) {
    throw new Error(
      `SSE_KEEPALIVE_MS must be an integer from 1 to 30000 (the spec's bound), got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}
/** Re-read interval when no feed notice arrives and notices may be lost (the feed is not live). */
const FALLBACK_MS = 500;
/**
 * Re-read interval when no feed notice arrives while the feed is live (it lost no notice since
 * before the last read): only a bound on a notice lost in a way the feed cannot see. At 500 ms,
 * 64 idle streams re-read the store 128 times a second (docs/performance-log.md, round 11).
 */
const LIVE_FALLBACK_MS = 5_000;
/** Events read per query while catching up. */
const PAGE = 500;

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_RUN_EVENT_TYPES);

/** Events that end a `bufferMs` window at once (stream-modes.md §Aggregation hint: terminal, suspension). */
function forcesFlush(type: string): boolean {
  return TERMINAL.has(type) || type === 'node.suspended';
}

/** What one SSE subscription asked for. */
export interface StreamRequest {
  readonly modes: readonly StreamMode[];
  /** Resume after this sequence (`Last-Event-ID`, else `?after=`, else -1). */
  readonly after: number;
  /** `?bufferMs=`: batch window in ms; absent or 0 sends every frame at once. */
  readonly bufferMs?: number;
}

/**
 * Serves `GET /v1/runs/{runId}/events` as server-sent events: the backlog after the cursor, then
 * new events as the projector commits them (feed notices, with a re-read every 500 ms as the
 * fallback, every 5 s while the feed is live), a `:keepalive` comment every 15 s (`SSE_KEEPALIVE_MS`), and the end of the response once the run's
 * terminal event was seen. `values` mode sends a `state.snapshot` baseline, then one snapshot
 * after each read holding an `updates`-tier event. Frames are named by event type in every mode,
 * mixed ones included (ADR 0022). With `bufferMs` the frames go out as `event: batch` arrays.
 */
@Injectable()
export class RunEventStreamer {
  private readonly logger = new Logger('Gateway');
  private readonly keepaliveMs = keepaliveMsFrom(process.env);

  constructor(
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
    private readonly shutdown: ShutdownSignal,
  ) {}

  /** Streams until the run ends, the client leaves or the app shuts down; never rejects. */
  async stream(res: Response, run: RunRow, request: StreamRequest): Promise<void> {
    const writer = new SseWriter(res);
    const sink = frameSinkFor(writer, request.bufferMs);
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    res.on('close', onClose);
    const signal = AbortSignal.any([gone.signal, this.shutdown.signal]);
    writer.open();
    const keepalive = setInterval(() => void writer.comment('keepalive'), this.keepaliveMs);
    const notices = new RunNotices(this.feed, run.runId);
    try {
      await this.pump(writer, sink, notices, run, request, signal);
      await sink.flush();
    } catch (error) {
      this.logger.error(
        `SSE stream of run ${run.runId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    } finally {
      clearInterval(keepalive);
      notices.close();
      res.off('close', onClose);
      writer.end();
    }
  }

  private async pump(
    writer: SseWriter,
    sink: SseFrameSink,
    notices: RunNotices,
    run: RunRow,
    { modes, after }: StreamRequest,
    signal: AbortSignal,
  ): Promise<void> {
    const values = modes.includes('values');
    let cursor = after;
    if (values) {
      const baseline = snapshotEvent(run);
      await sink.add(
        { id: run.lastSequence, event: 'state.snapshot', data: baseline },
        baseline,
        isTerminalRunStatus(run.status),
      );
      cursor = Math.max(cursor, run.lastSequence);
      if (isTerminalRunStatus(run.status)) return;
    }
    // Resuming past the end of a finished run: nothing will ever follow.
    if (isTerminalRunStatus(run.status) && cursor >= run.lastSequence) return;
    while (!signal.aborted && writer.isOpen) {
      const liveSince = this.feed.liveSince;
      notices.reset();
      const batch = await this.runs.eventsAfter(run.runId, cursor, PAGE);
      let terminal = false;
      for (const event of batch) {
        if (!values) await this.send(sink, event, modes);
        cursor = event.sequence;
        terminal ||= TERMINAL.has(event.type);
      }
      if (values && batch.some((e) => modeAdmits('values', e.type))) {
        const current = (await this.runs.findVisible(run.runId, run.tenant)) ?? run;
        cursor = Math.max(cursor, current.lastSequence);
        terminal ||= isTerminalRunStatus(current.status);
        const snapshot = snapshotEvent({ ...current, lastSequence: cursor });
        await sink.add(
          { id: cursor, event: 'state.snapshot', data: snapshot },
          snapshot,
          terminal || batch.some((e) => forcesFlush(e.type)),
        );
      }
      if (terminal) return;
      await sink.flushIfDue();
      if (batch.length === PAGE) continue;
      // Live since before the read: every notice after it arrives, so the re-read is only a backstop.
      const fallback =
        liveSince !== undefined && this.feed.liveSince === liveSince ? LIVE_FALLBACK_MS : FALLBACK_MS;
      await notices.wait(Math.min(fallback, sink.msUntilDue() ?? fallback), signal);
    }
  }

  private async send(sink: SseFrameSink, event: RunEventDoc, modes: readonly StreamMode[]): Promise<void> {
    const mode = admittingMode(modes, event.type);
    if (mode === undefined) return;
    const flushNow = forcesFlush(event.type);
    if (mode === 'messages' && event.type === 'output.chunk') {
      // stream-modes.md §messages: the chunk payload itself, under the `ai.message.chunk` name; in a
      // batch, a RunEventDoc of that type carrying it.
      const chunk = messageChunkOf(event);
      const doc = { ...event, type: MESSAGE_CHUNK_EVENT, payload: chunk };
      await sink.add({ id: event.sequence, event: MESSAGE_CHUNK_EVENT, data: chunk }, doc, flushNow);
      return;
    }
    await sink.add({ id: event.sequence, event: event.type, data: event }, event, flushNow);
  }
}
