import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/**
 * Lines typed by the person at the terminal, or piped in: each `ask` shows a prompt and returns the
 * next line, or `null` at end of input or once `signal` aborts. On a TTY, readline edits the line;
 * when stdin is piped the line is echoed after the prompt, so the transcript reads the same.
 * Ctrl+C on a TTY (readline holds the terminal in raw mode) calls `onInterrupt`.
 */
export class LineInput {
  private rl: Interface | undefined;
  private readonly queue: string[] = [];
  private ended = false;
  private waiter: (() => void) | undefined;

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
    const rl = createInterface({ input: this.input, output: this.output, terminal: this.isTTY });
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
      rl.setPrompt(prompt);
      rl.prompt();
    }
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

  close(): void {
    this.rl?.close();
    this.rl = undefined;
    if (!this.isTTY) this.input.pause();
  }

  private wake(): void {
    this.waiter?.();
  }
}
