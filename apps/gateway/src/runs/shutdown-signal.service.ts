import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';

/**
 * Aborted when the application starts shutting down, so open SSE streams and long polls end and
 * the HTTP server can close instead of waiting for them.
 */
@Injectable()
export class ShutdownSignal implements BeforeApplicationShutdown {
  private readonly controller = new AbortController();

  /** The signal every long-lived request listens to. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  beforeApplicationShutdown(): void {
    this.controller.abort();
  }
}
