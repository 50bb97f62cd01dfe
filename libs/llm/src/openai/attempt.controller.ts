/** Why an attempt's signal aborted. */
export type AttemptAbortCause = 'aborted' | 'timeout' | 'released';

/**
 * The abort signal of one HTTP attempt: it aborts when the caller's signal aborts, when the
 * inactivity timer fires (armed while waiting for headers or for the next stream piece), or when
 * the attempt is released early. {@link cause} tells which, so errors map to the right code.
 */
export class AttemptController {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private abortCause: AttemptAbortCause | undefined;
  private readonly onParentAbort = (): void => this.abort('aborted');

  constructor(
    private readonly parent: AbortSignal | undefined,
    private readonly timeoutMs: number,
  ) {
    if (parent?.aborted) this.abort('aborted');
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cause(): AttemptAbortCause | undefined {
    return this.abortCause;
  }

  /** (Re)starts the inactivity timer. */
  arm(): void {
    this.disarm();
    if (this.abortCause) return;
    this.timer = setTimeout(() => this.abort('timeout'), this.timeoutMs);
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Aborts the attempt (closing its connection) unless it already aborted. */
  abort(cause: AttemptAbortCause): void {
    if (this.abortCause) return;
    this.abortCause = cause;
    this.disarm();
    this.controller.abort(new Error(`attempt ${cause}`));
  }

  /** Stops the timer and forgets the caller's signal; call once the attempt is over. */
  dispose(): void {
    this.disarm();
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }
}
