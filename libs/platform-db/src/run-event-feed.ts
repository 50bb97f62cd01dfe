import { EventEmitter } from 'node:events';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Tells readers that the projector committed a run's events up to a sequence, so the gateway can
 * answer read-your-writes and push SSE without polling hot. A lost notice only costs latency:
 * readers fall back to re-reading the store on a short interval.
 */
export interface RunEventFeed {
  /** Called by the projector after its transaction committed: these runs' events are stored up to `sequence`. */
  publishedAll(notices: readonly { readonly runId: string; readonly sequence: number }[]): Promise<void>;
  /** Calls `listener` for every notice of `runId`; returns the unsubscribe function. */
  watch(runId: string, listener: (sequence: number) => void): () => void;
  /**
   * Since when (ms since the epoch) every notice reaches the listeners, or undefined while notices
   * may be lost (the feed is not connected yet, or its connection broke). A reader that saw the same
   * value before its read and after it missed no notice in between, so it may re-read the store
   * less often while it waits.
   */
  readonly liveSince?: number | undefined;
  close(): Promise<void>;
}

/** The embedded mode's feed: an in-process emitter. */
export class InProcessRunEventFeed implements RunEventFeed {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  /** An in-process emitter loses no notice. */
  readonly liveSince: number = Date.now();

  async publishedAll(
    notices: readonly { readonly runId: string; readonly sequence: number }[],
  ): Promise<void> {
    for (const n of notices) this.emitter.emit(n.runId, n.sequence);
  }

  watch(runId: string, listener: (sequence: number) => void): () => void {
    this.emitter.on(runId, listener);
    return () => this.emitter.off(runId, listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

const CHANNEL = 'openwop_run_events';

/** The distributed feed: Postgres NOTIFY from projectors, one LISTEN connection per reading process. */
export class PgRunEventFeed implements RunEventFeed {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private listener: Client | null = null;
  private connecting: Promise<void> | null = null;
  private listeningSince: number | undefined;

  constructor(
    private readonly ds: DataSource,
    private readonly url: string,
  ) {}

  async publishedAll(
    notices: readonly { readonly runId: string; readonly sequence: number }[],
  ): Promise<void> {
    if (notices.length === 0) return;
    await this.ds.query('SELECT pg_notify($1, n) FROM unnest($2::text[]) AS n', [
      CHANNEL,
      notices.map((n) => `${n.sequence}:${n.runId}`),
    ]);
  }

  watch(runId: string, listener: (sequence: number) => void): () => void {
    void this.ensureListening();
    this.emitter.on(runId, listener);
    return () => this.emitter.off(runId, listener);
  }

  /** Since the LISTEN connection was established; undefined before, and once it failed or ended. */
  get liveSince(): number | undefined {
    return this.listeningSince;
  }

  private ensureListening(): Promise<void> {
    this.connecting ??= (async () => {
      const client = new Client({ connectionString: this.url, application_name: 'openwop-feed' });
      client.on('notification', (n) => {
        const text = n.payload ?? '';
        const colon = text.indexOf(':');
        this.emitter.emit(text.slice(colon + 1), Number(text.slice(0, colon)));
      });
      const lost = (): void => {
        // The reader's polling fallback covers the gap; reconnect on next watch.
        if (this.listener !== null && this.listener !== client) return;
        this.listener = null;
        this.connecting = null;
        this.listeningSince = undefined;
      };
      client.on('error', lost);
      client.on('end', lost);
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
      this.listeningSince = Date.now();
    })().catch(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
    await this.listener?.end().catch(() => undefined);
  }
}
