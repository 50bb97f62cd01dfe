import type { Writable } from 'node:stream';

/** ANSI styles, applied only when colour is on. */
const STYLES = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
  bold: [1, 22],
} as const;
export type Style = keyof typeof STYLES;

/**
 * Where `wop` writes. Human text goes to stdout, or to stderr under `--json`, where stdout carries
 * only NDJSON records. Colour is off under `NO_COLOR`, `--no-color`, or when stdout is not a TTY.
 */
export class Output {
  readonly color: boolean;
  /** Whether the last text for people left its line open (a streamed reply, a prompt). */
  private midLine = false;

  constructor(
    readonly json: boolean,
    private readonly stdout: Writable & { isTTY?: boolean },
    private readonly stderr: Writable,
    env: NodeJS.ProcessEnv,
    noColor = false,
  ) {
    this.color = !noColor && !json && stdout.isTTY === true && env.NO_COLOR === undefined;
  }

  /** A line for people. */
  line(text = ''): void {
    (this.json ? this.stderr : this.stdout).write(`${text}\n`);
    this.midLine = false;
  }

  /** Text without a newline (streamed agent replies, prompts). */
  write(text: string): void {
    if (text === '') return;
    (this.json ? this.stderr : this.stdout).write(text);
    this.midLine = !text.endsWith('\n');
  }

  /** Ends the line {@link write} left open, if any, so what follows starts on its own line. */
  endLine(): void {
    if (this.midLine) this.line();
  }

  /** One NDJSON record (only under `--json`). */
  record(value: Record<string, unknown>): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** An error line, always to stderr. */
  error(text: string): void {
    this.endLine();
    this.stderr.write(`${this.paint('red', 'error:')} ${text}\n`);
  }

  /** A line to stderr as it is (validation findings carry their own severity). */
  diagnostic(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  warn(text: string): void {
    this.stderr.write(`${this.paint('yellow', 'warning:')} ${text}\n`);
  }

  paint(style: Style, text: string): string {
    if (!this.color) return text;
    const [on, off] = STYLES[style];
    return `\x1b[${on}m${text}\x1b[${off}m`;
  }

  /** Resolves once everything written so far has been handed to the OS. */
  async flush(): Promise<void> {
    await Promise.all(
      [this.stdout, this.stderr].map(
        (s) => new Promise<void>((r) => (s.write('') ? r() : s.once('drain', () => r()))),
      ),
    );
  }
}
