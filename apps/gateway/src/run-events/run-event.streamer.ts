import { Inject, Injectable, Logger } from '@nestjs/common';
import { TERMINAL_RUN_EVENT_TYPES, type RunEventDoc } from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Response } from 'express';
import { RunNotices } from '../runs/run-change.waiter';
import { isTerminalStatus, RunReadRepository, type RunRow } from '../runs/run-read.repository';
import { ShutdownSignal } from '../runs/shutdown-signal.service';
import { snapshotEvent } from './run-events.reader';
import { SseWriter } from './sse.writer';
import { admittingMode, MESSAGE_CHUNK_EVENT, messageChunkOf, modeAdmits, type StreamMode } from './stream-mode.parser';

/** Comment interval that keeps proxies from closing an idle stream (spec: at most 30 s). */
export const KEEPALIVE_MS = 15_000;
/** Re-read interval when no feed notice arrives. */
const FALLBACK_MS = 500;
/** Events read per query while catching up. */
const PAGE = 500;

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_RUN_EVENT_TYPES);

/**
 * Serves `GET /v1/runs/{runId}/events` as server-sent events: the backlog after the cursor, then
 * new events as the projector commits them (feed notices, with a re-read every 500 ms as the
 * fallback), a `:keepalive` comment every 15 s, and the end of the response once the run's
 * terminal event was seen. `values` mode sends a `state.snapshot` baseline, then one snapshot
 * after each batch holding an `updates`-tier event.
 */
@Injectable()
export class RunEventStreamer {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
    private readonly shutdown: ShutdownSignal,
  ) {}

  /** Streams until the run ends, the client leaves or the app shuts down; never rejects. */
  async stream(res: Response, run: RunRow, modes: readonly StreamMode[], after: number): Promise<void> {
    const writer = new SseWriter(res);
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    res.on('close', onClose);
    const signal = AbortSignal.any([gone.signal, this.shutdown.signal]);
    writer.open();
    const keepalive = setInterval(() => void writer.comment('keepalive'), KEEPALIVE_MS);
    const notices = new RunNotices(this.feed, run.runId);
    try {
      await this.pump(writer, notices, run, modes, after, signal);
    } catch (error) {
      this.logger.error(`SSE stream of run ${run.runId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
      clearInterval(keepalive);
      notices.close();
      res.off('close', onClose);
      writer.end();
    }
  }

  private async pump(writer: SseWriter, notices: RunNotices, run: RunRow, modes: readonly StreamMode[], after: number, signal: AbortSignal): Promise<void> {
    const values = modes.includes('values');
    let cursor = after;
    if (values) {
      await writer.frame({ id: run.lastSequence, event: 'state.snapshot', data: snapshotEvent(run) });
      cursor = Math.max(cursor, run.lastSequence);
      if (isTerminalStatus(run.status)) return;
    }
    // Resuming past the end of a finished run: nothing will ever follow.
    if (isTerminalStatus(run.status) && cursor >= run.lastSequence) return;
    while (!signal.aborted && writer.isOpen) {
      notices.reset();
      const batch = await this.runs.eventsAfter(run.runId, cursor, PAGE);
      let terminal = false;
      for (const event of batch) {
        if (!values) await this.send(writer, event, modes);
        cursor = event.sequence;
        terminal ||= TERMINAL.has(event.type);
      }
      if (values && batch.some((e) => modeAdmits('values', e.type))) {
        const current = (await this.runs.findVisible(run.runId, run.tenant)) ?? run;
        cursor = Math.max(cursor, current.lastSequence);
        terminal ||= isTerminalStatus(current.status);
        await writer.frame({ id: cursor, event: 'state.snapshot', data: snapshotEvent({ ...current, lastSequence: cursor }) });
      }
      if (terminal) return;
      if (batch.length === PAGE) continue;
      await notices.wait(FALLBACK_MS, signal);
    }
  }

  private async send(writer: SseWriter, event: RunEventDoc, modes: readonly StreamMode[]): Promise<void> {
    const mode = admittingMode(modes, event.type);
    if (mode === undefined) return;
    if (mode === 'messages' && event.type === 'output.chunk') {
      // stream-modes.md §messages: the chunk payload itself, under the `ai.message.chunk` name.
      await writer.frame({ id: event.sequence, event: modes.length > 1 ? mode : MESSAGE_CHUNK_EVENT, data: messageChunkOf(event) });
      return;
    }
    await writer.frame({ id: event.sequence, event: modes.length > 1 ? mode : event.type, data: event });
  }
}
