import type { IncomingMessage, MessageHandler } from '../bus.port';

export interface RecordedMessage {
  /** Which subscriber handled it. */
  readonly by: string;
  readonly message: IncomingMessage;
}

/** Records what each subscriber handled, in handling order. */
export class MessageRecorder {
  readonly handled: RecordedMessage[] = [];

  /** A handler that records under `by`, after an optional `before` hook (delays, failures). */
  handler(by: string, before?: (message: IncomingMessage) => Promise<void>): MessageHandler {
    return async (message) => {
      await before?.(message);
      this.handled.push({ by, message });
    };
  }

  by(label: string): IncomingMessage[] {
    return this.handled.filter((r) => r.by === label).map((r) => r.message);
  }

  get count(): number {
    return this.handled.length;
  }
}
