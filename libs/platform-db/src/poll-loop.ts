/**
 * The schedule of a durable timer's poller: `tick` runs about every `intervalMs` (jittered ±25 %,
 * so instances do not poll in step), one tick at a time, until {@link PollLoop.stop}. The due times
 * themselves live in Postgres; this only decides when to look. A failed tick is reported and the
 * next one retries, since whatever it claimed rolled back and is still due. {@link PollLoop.kick}
 * runs a tick now (after the one in progress, if any) when the process itself knows there is work.
 */
export class PollLoop {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private started = false;
  private stopping = false;
  private again = false;
  /** Set before `tick` is called (a tick may kick synchronously, before `ticking` is assigned). */
  private inTick = false;
  /** When the scheduled tick runs (epoch ms), while one is scheduled. */
  private nextAt: number | undefined;
  /** A due time told during a tick (epoch ms): the next tick is no later. */
  private dueAt: number | undefined;

  constructor(
    private readonly tick: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Between {@link start} and {@link stop}: a tick may drain batch after batch. */
  get active(): boolean {
    return this.started && !this.stopping;
  }

  /** {@link stop} was called: a tick in progress should finish its batch and return. */
  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    this.started = true;
    this.stopping = false;
    this.schedule();
  }

  /**
   * Ticks now instead of at the next scheduled time; during a tick, once more right after it (kicks
   * during one tick make one more). Does nothing before {@link start} or after {@link stop}.
   */
  kick(): void {
    if (!this.active) return;
    if (this.inTick) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.run();
  }

  /**
   * Ticks in `ms` (now, when not positive) if that is sooner than the next scheduled tick: the
   * process itself wrote a due time and need not wait for a poll to find it. A tick in progress
   * gets one more right after it when the time is already due.
   */
  dueIn(ms: number): void {
    if (!this.active) return;
    if (ms <= 0) {
      this.kick();
      return;
    }
    const at = Date.now() + ms;
    if (this.inTick) {
      // The tick in progress schedules the next one: no later than this.
      this.dueAt = Math.min(this.dueAt ?? at, at);
      return;
    }
    if (this.nextAt !== undefined && this.nextAt <= at) return;
    clearTimeout(this.timer);
    this.nextAt = at;
    this.timer = setTimeout(() => this.run(), ms);
  }

  /** Stops scheduling and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.ticking;
  }

  private schedule(): void {
    if (this.stopping) return;
    const jittered = this.intervalMs * (0.75 + Math.random() * 0.5);
    const wait =
      this.dueAt === undefined ? jittered : Math.max(0, Math.min(jittered, this.dueAt - Date.now()));
    this.dueAt = undefined;
    this.nextAt = Date.now() + wait;
    this.timer = setTimeout(() => this.run(), wait);
  }

  private run(): void {
    this.nextAt = undefined;
    this.inTick = true;
    this.ticking = this.tick()
      .then(() => undefined, this.onError)
      .finally(() => {
        this.inTick = false;
        this.ticking = undefined;
        if (this.again && !this.stopping) {
          this.again = false;
          this.run();
        } else this.schedule();
      });
  }
}
