import type { SseFrame } from './sse.writer';

/** Where the streamer puts frames: straight onto the wire, or into `?bufferMs=` batches. */
export interface SseFrameSink {
  /**
   * Sends `frame` (unbuffered) or adds `doc`, the `RunEventDoc` it carries, to the open batch.
   * `flushNow` marks a forced flush trigger (stream-modes.md §Aggregation hint: a terminal run
   * event or a suspension), which sends the batch at once.
   */
  add(frame: SseFrame, doc: unknown, flushNow: boolean): Promise<void>;
  /** Sends the open batch when its window is over. */
  flushIfDue(): Promise<void>;
  /** Sends the open batch now (the stream is about to close). */
  flush(): Promise<void>;
  /** Milliseconds until the open batch is due, or `undefined` when nothing waits. */
  msUntilDue(): number | undefined;
}

/** What a sink writes to (the {@link SseWriter} of the response). */
export interface FrameOutput {
  frame(frame: SseFrame): Promise<void>;
}

/** The SSE event name of a batch frame. */
export const BATCH_EVENT = 'batch';

/** Writes every frame as it comes (no `bufferMs`, or `bufferMs=0`). */
export class DirectFrameSink implements SseFrameSink {
  constructor(private readonly out: FrameOutput) {}

  add(frame: SseFrame): Promise<void> {
    return this.out.frame(frame);
  }

  async flushIfDue(): Promise<void> {}

  async flush(): Promise<void> {}

  msUntilDue(): undefined {
    return undefined;
  }
}

/**
 * `?bufferMs=N`: collects the docs of the frames admitted within N ms of the first one and sends
 * them as one `event: batch` frame whose `data` is the JSON array of docs and whose `id` is the
 * highest sequence among them, so `Last-Event-ID` resumes after the whole batch. A forced trigger
 * sends the batch at once, whatever is left of the window.
 */
export class BatchingFrameSink implements SseFrameSink {
  private docs: unknown[] = [];
  private lastId = -1;
  private openedAt = 0;

  constructor(
    private readonly out: FrameOutput,
    private readonly bufferMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async add(frame: SseFrame, doc: unknown, flushNow: boolean): Promise<void> {
    if (this.docs.length === 0) this.openedAt = this.now();
    this.docs.push(doc);
    this.lastId = Math.max(this.lastId, frame.id);
    if (flushNow) await this.flush();
    else await this.flushIfDue();
  }

  async flushIfDue(): Promise<void> {
    if ((this.msUntilDue() ?? 1) <= 0) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.docs.length === 0) return;
    const data = this.docs;
    this.docs = [];
    await this.out.frame({ id: this.lastId, event: BATCH_EVENT, data });
  }

  msUntilDue(): number | undefined {
    if (this.docs.length === 0) return undefined;
    return Math.max(0, this.openedAt + this.bufferMs - this.now());
  }
}

/** The sink for a `bufferMs` query value (absent or 0: unbuffered). */
export function frameSinkFor(out: FrameOutput, bufferMs: number | undefined): SseFrameSink {
  return bufferMs !== undefined && bufferMs > 0
    ? new BatchingFrameSink(out, bufferMs)
    : new DirectFrameSink(out);
}
