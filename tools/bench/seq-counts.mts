/**
 * The exact counts of `npm run bench`: what the host's processes sent over the sequential
 * repetitions (warm-up and concurrent phases excluded), per cycle. The host processes run with the
 * `tools/bench/count-requests.cjs` preload; each SIGUSR2 makes every one of them write what it
 * counted since the previous signal into COUNT_DIR (`<INSTANCE_ID or pid>.json`) and start over.
 * A commit is an explicit COMMIT or a write outside a transaction (count-requests.cjs says which).
 * `begin()` signals and discards; `end(cycles)` signals and adds the files up.
 * The statements by text go to `<COUNT_DIR>.statements.txt`.
 * Env: COUNT_DIR (counting is off without it) and CPU_PIDS ("label:pid …", the host's processes).
 * Printed line (parsed by compare.mjs):
 *   COUNTS <name> seq : statements=<per cycle> commits=<per cycle> produce=<per cycle> fetch=<per cycle> over <n> cycles
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

interface Counted {
  pg: number;
  commits: number;
  kafka: Record<string, number>;
  pgText: Record<string, number>;
}

const DEADLINE_MS = 15_000;

export class SequentialCounts {
  private cycles = 0;
  private statements = 0;
  private commits = 0;
  private readonly kafka: Record<string, number> = {};
  private readonly texts: Record<string, number> = {};
  /** Per host process (its count file's name): statements and Kafka produce requests. */
  private readonly byProcess: Record<string, { statements: number; produce: number }> = {};

  private readonly dir: string;
  private readonly pids: readonly number[];

  private constructor(dir: string, pids: readonly number[]) {
    this.dir = dir;
    this.pids = pids;
  }

  static fromEnv(): SequentialCounts | undefined {
    const dir = process.env['COUNT_DIR'];
    const pids = (process.env['CPU_PIDS'] ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((x) => Number(x.split(':').pop()));
    return dir && pids.length ? new SequentialCounts(dir, pids) : undefined;
  }

  /** Starts a counted window: what was sent before it (warm-up, a concurrent phase) is dropped. */
  async begin(): Promise<void> {
    await this.collect();
  }

  /** Ends a counted window of `cycles` completed cycles and adds what was sent in it. */
  async end(cycles: number): Promise<void> {
    const files = await this.collect();
    this.cycles += cycles;
    for (const [name, c] of files) {
      const own = (this.byProcess[name] ??= { statements: 0, produce: 0 });
      own.statements += c.pg;
      own.produce += c.kafka['Produce'] ?? 0;
      this.statements += c.pg;
      this.commits += c.commits;
      for (const [text, k] of Object.entries(c.pgText)) this.texts[text] = (this.texts[text] ?? 0) + k;
      for (const [api, k] of Object.entries(c.kafka)) this.kafka[api] = (this.kafka[api] ?? 0) + k;
    }
  }

  /** The statements per cycle by text (their first 70 characters), most frequent first. */
  statementsByText(): string {
    return Object.entries(this.texts)
      .sort((a, b) => b[1] - a[1])
      .map(([text, k]) => `${(k / Math.max(1, this.cycles)).toFixed(2).padStart(7)}  ${text}`)
      .join('\n');
  }

  /** Statements and produce requests per cycle of each host process (by its count file's name). */
  byProcessLines(): string {
    const per = (x: number) => (x / Math.max(1, this.cycles)).toFixed(2).padStart(7);
    return Object.entries(this.byProcess)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, c]) => `${per(c.statements)} statements ${per(c.produce)} produce  ${name}`)
      .join('\n');
  }

  line(name: string): string {
    const per = (x: number) => (this.cycles ? (x / this.cycles).toFixed(2) : 'none');
    return (
      `COUNTS ${name} seq : statements=${per(this.statements)} commits=${per(this.commits)} ` +
      `produce=${per(this.kafka['Produce'] ?? 0)} fetch=${per(this.kafka['Fetch'] ?? 0)} over ${this.cycles} cycles`
    );
  }

  /** Signals every host process and waits (with a deadline) until each has written its file. */
  private async collect(): Promise<[string, Counted][]> {
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    for (const pid of this.pids) process.kill(pid, 'SIGUSR2');
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const names = readdirSync(this.dir).filter((f) => f.endsWith('.json'));
      if (names.length >= this.pids.length) {
        return names.map((f) => [
          f.replace(/\.json$/, ''),
          JSON.parse(readFileSync(join(this.dir, f), 'utf8')) as Counted,
        ]);
      }
      if (Date.now() > deadline) {
        throw new Error(
          `counts: ${names.length} of ${this.pids.length} host processes wrote their counts to ${this.dir}`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
