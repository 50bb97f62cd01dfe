import type { Response } from 'express';

/** One server-sent event frame (`id:`, `event:`, `data:`). */
export interface SseFrame {
  readonly id: number;
  readonly event: string;
  readonly data: unknown;
}

/** Serializes a frame; `JSON.stringify` never emits a raw newline, so `data:` stays one line. */
export function formatSseFrame(frame: SseFrame): string {
  return `id: ${frame.id}\nevent: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}

/**
 * Writes an SSE response: headers once, then frames and comments, waiting for `drain` when the
 * socket is full so a slow client cannot make the process buffer a whole run.
 */
export class SseWriter {
  constructor(private readonly res: Response) {}

  /** Sends the status line and the SSE headers. */
  open(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache, no-transform');
    this.res.setHeader('Connection', 'keep-alive');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
  }

  /** Whether the client is still there. */
  get isOpen(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  async frame(frame: SseFrame): Promise<void> {
    await this.write(formatSseFrame(frame));
  }

  /** An SSE comment line (`:keepalive`), ignored by clients, keeps intermediaries from timing out. */
  async comment(text: string): Promise<void> {
    await this.write(`:${text}\n\n`);
  }

  end(): void {
    if (this.isOpen) this.res.end();
  }

  private async write(chunk: string): Promise<void> {
    if (!this.isOpen) return;
    if (this.res.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }
}
