import type { RunEventFeed } from '@openwop/platform-db';

/**
 * Feed notices of one run, remembered between reads: a notice that arrives while the reader is
 * busy makes the next {@link wait} return at once, so none is lost. Call {@link close} when done.
 */
export class RunNotices {
  private pending = false;
  private highest = Number.NEGATIVE_INFINITY;
  private wake: () => void = () => undefined;
  private readonly unwatch: () => void;

  /** Notices of sequences below `minSequence` are ignored (the reader waits for a later one). */
  constructor(
    feed: RunEventFeed,
    runId: string,
    private minSequence = Number.NEGATIVE_INFINITY,
  ) {
    this.unwatch = feed.watch(runId, (sequence) => {
      this.highest = Math.max(this.highest, sequence);
      if (sequence < this.minSequence) return;
      this.pending = true;
      this.wake();
    });
  }

  /**
   * From now on only notices of `sequence` or later count (known once a command answered); a notice
   * of such a sequence that came earlier still counts.
   */
  atLeast(sequence: number): this {
    this.minSequence = sequence;
    this.pending = this.highest >= sequence;
    return this;
  }

  /** Whether a notice of `sequence` or later came: the store holds the run up to it. */
  reached(sequence: number): boolean {
    return this.highest >= sequence;
  }

  /** Forgets earlier notices; call right before reading the store. */
  reset(): void {
    this.pending = false;
  }

  /** Resolves on the first notice since {@link reset}, after `ms`, or when `signal` aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.pending || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.wake = () => undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  close(): void {
    this.unwatch();
  }
}

/** How long {@link waitForRun} waits and how often it re-reads when no notice arrives. */
export interface WaitOptions {
  readonly feed: RunEventFeed;
  readonly runId: string;
  /** Give up after this many milliseconds. */
  readonly timeoutMs: number;
  /** Re-probe at least this often, in case a feed notice was lost. */
  readonly fallbackMs: number;
  /** Stops waiting early (client gone, shutdown). */
  readonly signal?: AbortSignal;
  /**
   * Only notices of this sequence or later trigger a re-probe (the fallback interval still does);
   * applied to `notices` too (see {@link RunNotices.atLeast}).
   */
  readonly minSequence?: number;
  /**
   * Notices the caller began watching before its own read or command: then the first probe waits
   * for a notice (or the fallback interval) instead of repeating that read at once, and no notice
   * is missed in between. The caller closes them.
   */
  readonly notices?: RunNotices;
}

/**
 * Probes until `probe` returns a value, re-probing on every feed notice for the run and at least
 * every `fallbackMs`. Resolves `undefined` at the deadline or on abort.
 */
export async function waitForRun<T>(
  options: WaitOptions,
  probe: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  const notices = options.notices ?? new RunNotices(options.feed, options.runId, options.minSequence);
  if (options.notices && options.minSequence !== undefined) options.notices.atLeast(options.minSequence);
  try {
    if (options.notices) await notices.wait(Math.min(options.fallbackMs, options.timeoutMs), options.signal);
    for (;;) {
      notices.reset();
      const value = await probe();
      if (value !== undefined) return value;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || options.signal?.aborted) return undefined;
      await notices.wait(Math.min(options.fallbackMs, remaining), options.signal);
    }
  } finally {
    if (!options.notices) notices.close();
  }
}

/** A projected run row, as far as the waits below read it. */
export interface ProjectedRow {
  readonly status: string;
  readonly lastSequence: number;
  readonly snapshot: Record<string, unknown>;
}

/**
 * Whether the projector holds the run's later events (ADR 0019: an event it could not store marks
 * the run `projectionError` until `projector:rebuild --repair`). Its row will not move, so waiting
 * for it to catch up would only cost the full timeout.
 */
export function projectionHeld(row: Pick<ProjectedRow, 'snapshot'>): boolean {
  return row.snapshot.projectionError !== undefined && row.snapshot.projectionError !== null;
}

/**
 * Waits until the run's projected row is `ready`, the one way every command route reads its own
 * writes: re-reads on feed notices (see {@link waitForRun}), and stops at once when the run's
 * projection is held. Resolves the last row read with whether it was ready, or `undefined` when
 * the run was never visible before the deadline.
 */
export async function waitForProjectedRun<R extends ProjectedRow>(
  options: WaitOptions,
  read: () => Promise<R | undefined>,
  ready: (row: R) => boolean,
): Promise<{ readonly row: R; readonly ready: boolean } | undefined> {
  let last: R | undefined;
  const found = await waitForRun(options, async () => {
    last = await read();
    if (!last) return undefined;
    if (ready(last)) return { row: last, ready: true };
    return projectionHeld(last) ? { row: last, ready: false } : undefined;
  });
  return found ?? (last ? { row: last, ready: false } : undefined);
}

/** How long a command's answer waits for the feed's notice before it reads the run instead. */
const NOTICE_FIRST_MS = 100;

/**
 * Whether the feed told (or tells within {@link NOTICE_FIRST_MS}) that the store holds the run up to
 * `sequence`; from then on only such notices wake `notices`.
 */
export async function noticeOf(notices: RunNotices, sequence: number): Promise<boolean> {
  await notices.atLeast(sequence).wait(NOTICE_FIRST_MS);
  return notices.reached(sequence);
}

/** How long a command's events may take to reach the read model before the gateway answers anyway. */
export const READ_YOUR_WRITES_MS = 5_000;

/**
 * Read-your-writes after a command that wrote a run's events up to `written.lastSequence`: waits
 * until the projected run caught up and returns its status; past {@link READ_YOUR_WRITES_MS} it
 * logs and returns the status the command reported.
 */
export async function projectedStatus(
  deps: {
    readonly feed: RunEventFeed;
    readonly runs: {
      findVisible(runId: string, tenant: string): Promise<ProjectedRow | undefined>;
    };
    readonly warn: (line: string) => void;
  },
  runId: string,
  tenant: string,
  written: { readonly lastSequence: number; readonly status: string },
  notices?: RunNotices,
): Promise<string> {
  // The feed's notice says the store holds the run up to the command's last event: the status the
  // command reported is the projected one, and reading it back would only repeat it (ADR 0039).
  if (notices && (await noticeOf(notices, written.lastSequence))) return written.status;
  const found = await waitForProjectedRun(
    {
      feed: deps.feed,
      runId,
      timeoutMs: READ_YOUR_WRITES_MS,
      fallbackMs: 100,
      minSequence: written.lastSequence,
      ...(notices ? { notices } : {}),
    },
    () => deps.runs.findVisible(runId, tenant),
    (row) => row.lastSequence >= written.lastSequence,
  );
  if (found?.ready) return found.row.status;
  if (found && projectionHeld(found.row)) return written.status;
  deps.warn(
    `run ${runId} was not projected up to sequence ${written.lastSequence} within ${READ_YOUR_WRITES_MS} ms`,
  );
  return written.status;
}
