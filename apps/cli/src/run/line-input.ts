import { createInterface, type Interface } from 'node:readline';
import { Writable, type Readable } from 'node:stream';

/**
 * Lines typed by the person at the terminal, or piped in: each `ask` shows a prompt and returns the
 * next line, or `null` at end of input or once `signal` aborts. On a TTY, readline edits the line;
 * when stdin is piped the line is echoed after the prompt, so the transcript reads the same.
 * Ctrl+C on a TTY (readline holds the terminal in raw mode) calls `onInterrupt`.
 *
 * Typing ahead on a TTY (while the agent's reply streams, before the next prompt): readline keeps
 * the keys but its echo is held back, so they never land inside the agent's line; the next prompt
 * is drawn with what was typed after it, and a whole line typed ahead is shown after its prompt
 * when it is taken.
 */
export class LineInput {
  private rl: Interface | undefined;
  private readonly queue: string[] = [];
  private ended = false;
  private waiter: (() => void) | undefined;
  /** Whether readline's echo reaches the terminal: only while a prompt is up. */
  private echoing = false;

  constructor(
    private readonly input: Readable & { isTTY?: boolean },
    private readonly output: Writable,
    private readonly onInterrupt: () => void,
  ) {}

  get isTTY(): boolean {
    return this.input.isTTY === true;
  }

  private open(): Interface {
    if (this.rl) return this.rl;
    const rl = createInterface({
      input: this.input,
      output: this.isTTY ? this.echo() : this.output,
      terminal: this.isTTY,
    });
    rl.on('line', (line) => {
      this.queue.push(line);
      this.wake();
    });
    rl.on('close', () => {
      this.ended = true;
      this.wake();
    });
    rl.on('SIGINT', () => this.onInterrupt());
    this.rl = rl;
    return rl;
  }

  /** Shows `prompt` and resolves with the next line (without its newline), or `null`. */
  async ask(prompt: string, signal: AbortSignal): Promise<string | null> {
    const rl = this.open();
    if (this.isTTY) {
      const typedAhead = this.queue.shift();
      if (typedAhead !== undefined) {
        this.output.write(`${prompt}${typedAhead}\n`);
        return typedAhead;
      }
      this.echoing = true;
      rl.setPrompt(prompt);
      // `true` keeps what was typed ahead on the line, after the prompt, with the cursor at its end.
      rl.prompt(true);
    }
    try {
      return await this.next(prompt, signal);
    } finally {
      this.echoing = false;
    }
  }

  /** The next line once the prompt is up (see {@link ask}). */
  private async next(prompt: string, signal: AbortSignal): Promise<string | null> {
    while (this.queue.length === 0 && !this.ended && !signal.aborted) {
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      this.waiter = undefined;
    }
    if (signal.aborted) {
      // Ctrl+C at a terminal: the prompt's line is still open; what is printed next starts below it.
      if (this.isTTY) this.output.write('\n');
      return null;
    }
    const line = this.queue.shift();
    if (line === undefined) {
      if (this.isTTY) this.output.write('\n');
      return null;
    }
    if (!this.isTTY) this.output.write(`${prompt}${line}\n`);
    return line;
  }

  /** readline's output on a TTY: the terminal, while {@link echoing}; nothing otherwise. */
  private echo(): Writable {
    const target = this.output as Writable & { columns?: number; rows?: number };
    const echo = new Writable({ write: (_chunk, _encoding, done) => done() });
    // Decided when readline writes (a stream's own queue would decide later, after the prompt is down).
    echo.write = ((chunk: string | Uint8Array) =>
      this.echoing ? target.write(chunk) : true) as Writable['write'];
    Object.defineProperties(echo, {
      isTTY: { value: true },
      columns: { get: () => target.columns ?? 80 },
      rows: { get: () => target.rows ?? 24 },
    });
    return echo;
  }

  close(): void {
    this.rl?.close();
    this.rl = undefined;
    if (!this.isTTY) this.input.pause();
  }

  private wake(): void {
    this.waiter?.();
  }
}
