/**
 * Ctrl+C (SIGINT/SIGTERM) while following a run. Waits, prompts and the event stream stop at once
 * (`signal` aborts); a request marked {@link critical} — a conversation turn, an answer — that is
 * already on the wire finishes first, and one not yet sent is not sent. So the run is left exactly
 * as the server last recorded it: durable, resumable with `wop attach`.
 */
export class Interruption {
  private readonly controller = new AbortController();
  private inFlight = 0;
  private wanted = false;

  get requested(): boolean {
    return this.wanted;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  request(): void {
    if (this.wanted) return;
    this.wanted = true;
    if (this.inFlight === 0) this.controller.abort();
  }

  /** Sends a request that must not be cut in half: `undefined` (not sent) once interrupted. */
  async critical<T>(send: () => Promise<T>): Promise<T | undefined> {
    if (this.wanted) return undefined;
    this.inFlight++;
    try {
      return await send();
    } finally {
      this.inFlight--;
      if (this.wanted && this.inFlight === 0) this.controller.abort();
    }
  }
}
