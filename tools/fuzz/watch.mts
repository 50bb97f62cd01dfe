/**
 * What the fuzzer watches besides the answers: tenant fairness (a second tenant's probe loop and the
 * host's event-loop delay from `GET /metrics`), dead letters (the bus's counter and the log lines
 * naming them), secrets in the host's log, and resolving tokens in what a principal is shown.
 */
import { Worker } from 'node:worker_threads';
import type { AppProcess } from '@openwop/testing';

/** The probe loop (plain JS for a worker): GET every `everyMs`, latencies posted every 500 ms and at stop. */
const PROBE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { url, key, everyMs } = workerData;
let running = true, ms = [], errors = 0, failures = [];
// This thread does next to nothing: its own event-loop delay is the machine's CPU contention.
const own = monitorEventLoopDelay({ resolution: 10 });
own.enable();
parentPort.on('message', () => { running = false; });
const flush = (done) => {
  parentPort.postMessage({ ms, errors, failures, done, ownP99: own.percentile(99) / 1e6, ownMax: own.max / 1e6 });
  own.reset();
  ms = []; errors = 0; failures = [];
};
const timer = setInterval(() => flush(false), 500);
(async () => {
  while (running) {
    const t = performance.now();
    try {
      const res = await fetch(url, { headers: { authorization: 'Bearer ' + key }, signal: AbortSignal.timeout(30000) });
      await res.text();
      if (res.status !== 200) { errors++; failures.push('probe answered ' + res.status); }
    } catch (e) { errors++; failures.push('probe failed: ' + String(e)); }
    const d = performance.now() - t;
    ms.push(d, Date.now());
    await new Promise((r) => setTimeout(r, Math.max(0, everyMs - d)));
  }
  clearInterval(timer);
  flush(true);
})();
`;

// ------------------------------------------------------------------ numbers

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Figures {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function figures(values: readonly number[]): Figures {
  const s = [...values].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    n: s.length,
    p50: r(percentile(s, 50)),
    p99: r(percentile(s, 99)),
    max: r(s.length ? s[s.length - 1]! : NaN),
  };
}

// ------------------------------------------------------------------ Prometheus text

/** `name{labels} value` samples of a Prometheus scrape whose name is `name`. */
export function samples(text: string, name: string): { labels: string; value: number }[] {
  const out: { labels: string; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m && m[1] === name) out.push({ labels: m[2] ?? '', value: Number(m[3]) });
  }
  return out;
}

// ------------------------------------------------------------------ fairness

/**
 * A second tenant's probe loop (`GET /v1/runs?limit=1` every `everyMs`) and a scraper of every
 * metrics URL (each second): the probe's latencies and the event-loop delay the host reports
 * (`nodejs_eventloop_delay_*_seconds`, reset by each scrape, so each sample is one window).
 */
export class FairnessWatch {
  readonly probeMs: number[] = [];
  /** When each probe answered (epoch ms), parallel to `probeMs`. */
  readonly probeAt: number[] = [];
  /** When each event-loop window was read, parallel to `loopP99`. */
  readonly loopAt: number[] = [];
  /** Phases of the run (`[name, from, to]`, epoch ms), for figures per phase. */
  private readonly phases: [string, number, number][] = [];
  private phase: [string, number] | undefined;
  /** Per metrics window: p50, p99 and max of the event-loop delay, in ms. */
  readonly loopP50: number[] = [];
  readonly loopP99: number[] = [];
  readonly loopMax: number[] = [];
  probeErrors = 0;
  probeFailures: string[] = [];
  /** Dead letters counted by the host, summed over its processes (the last scrape). */
  deadLetters = 0;
  deadLetterSeries: Record<string, number> = {};
  eventLoopExported: boolean | undefined;
  /** The probe thread's own event-loop delay p99 per 0.5-s window (ms): how starved the machine's CPUs were. */
  readonly ownLoopP99: number[] = [];
  /** The worst event-loop window p99 (ms) of each metrics URL (each process). */
  readonly worstByUrl: Record<string, number> = {};
  private running = false;
  private loops: Promise<void>[] = [];

  private readonly base: string;
  private readonly probeKey: string;
  private metricsUrls: readonly string[];
  private readonly everyMs: number;

  constructor(base: string, probeKey: string, metricsUrls: readonly string[], everyMs = 20) {
    this.base = base;
    this.probeKey = probeKey;
    this.metricsUrls = metricsUrls;
    this.everyMs = everyMs;
  }

  setMetricsUrls(urls: readonly string[]): void {
    this.metricsUrls = urls;
  }

  /** Forgets the windows read so far (the first one spans the host's start-up). */
  resetWindows(): void {
    this.loopP50.length = 0;
    this.loopP99.length = 0;
    this.loopMax.length = 0;
    this.loopAt.length = 0;
  }

  /** Starts a named phase (ends the previous one). */
  mark(name: string | undefined): void {
    const now = Date.now();
    if (this.phase) this.phases.push([this.phase[0], this.phase[1], now]);
    this.phase = name ? [name, now] : undefined;
  }

  /**
   * Probe p99 and the worst event-loop window per phase name (windows are read each second, so a
   * window counts for the phase it ended in), worst first.
   */
  byPhase(): { phase: string; probe: Figures; loopP99: number | undefined }[] {
    this.mark(this.phase?.[0]);
    const names = [...new Set(this.phases.map(([n]) => n))];
    const within = (at: number, name: string) =>
      this.phases.some(([n, from, to]) => n === name && at >= from && at <= to);
    return names
      .map((phase) => {
        const probe = figures(this.probeMs.filter((_, i) => within(this.probeAt[i]!, phase)));
        const loops = this.loopP99.filter((_, i) => within(this.loopAt[i]!, phase));
        return { phase, probe, loopP99: loops.length ? Math.round(Math.max(...loops) * 10) / 10 : undefined };
      })
      .sort((a, b) => (b.probe.p99 || 0) - (a.probe.p99 || 0));
  }

  start(): void {
    this.running = true;
    this.loops = [this.probeLoop(), this.scrapeLoop()];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await this.scrape();
  }

  /**
   * The probe runs in a worker thread: its timings are the host's, not delays of the fuzzer's own
   * event loop (which builds multi-megabyte bodies now and then).
   */
  private async probeLoop(): Promise<void> {
    const worker = new Worker(PROBE_WORKER, {
      eval: true,
      workerData: { url: `${this.base}/v1/runs?limit=1`, key: this.probeKey, everyMs: this.everyMs },
    });
    const done = new Promise<void>((res) => {
      worker.on(
        'message',
        (m: {
          ms: number[];
          errors: number;
          failures: string[];
          done?: boolean;
          ownP99: number;
          ownMax: number;
        }) => {
          if (Number.isFinite(m.ownP99) && m.ownP99 > 0) this.ownLoopP99.push(m.ownP99);
          for (let i = 0; i < m.ms.length; i += 2) {
            this.probeMs.push(m.ms[i]!);
            this.probeAt.push(m.ms[i + 1]!);
          }
          this.probeErrors += m.errors;
          for (const f of m.failures) if (this.probeFailures.length < 5) this.probeFailures.push(f);
          if (m.done) res();
        },
      );
      worker.on('error', (e) => {
        this.probeFailures.push(`probe worker: ${String(e)}`);
        res();
      });
      worker.on('exit', () => res());
    });
    while (this.running) await new Promise((res) => setTimeout(res, 100));
    worker.postMessage('stop');
    await done;
    await worker.terminate();
  }

  private async scrapeLoop(): Promise<void> {
    while (this.running) {
      await this.scrape();
      for (let i = 0; i < 10 && this.running; i++) await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Reads every metrics URL once: event-loop windows and the dead-letter counters. */
  async scrape(): Promise<void> {
    let dead = 0;
    const series: Record<string, number> = {};
    for (const url of this.metricsUrls) {
      let text: string;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
        if (res.status !== 200) continue;
        text = await res.text();
      } catch {
        continue;
      }
      // Gauges in seconds, with or without the unit suffix (exporters differ).
      const one = (name: string) =>
        samples(text, `${name}_seconds`)[0]?.value ?? samples(text, name)[0]?.value;
      const p50 = one('nodejs_eventloop_delay_p50');
      const p99 = one('nodejs_eventloop_delay_p99');
      const max = one('nodejs_eventloop_delay_max');
      if (p99 !== undefined) {
        this.eventLoopExported = true;
        if (p50 !== undefined) this.loopP50.push(p50 * 1000);
        this.loopP99.push(p99 * 1000);
        this.loopAt.push(Date.now());
        this.worstByUrl[url] = Math.max(this.worstByUrl[url] ?? 0, Math.round(p99 * 10_000) / 10);
        if (max !== undefined) this.loopMax.push(max * 1000);
      } else if (this.eventLoopExported === undefined) this.eventLoopExported = false;
      for (const s of samples(text, 'openwop_bus_dead_letters_total')) {
        dead += s.value;
        if (s.value) series[`${new URL(url).port}${s.labels}`] = s.value;
      }
    }
    this.deadLetters = dead;
    this.deadLetterSeries = series;
  }

  probe(): Figures {
    return figures(this.probeMs);
  }

  /** The event-loop delay: median of the windows' p50, the worst window's p99 and the max. */
  eventLoop(): Figures | undefined {
    if (!this.loopP99.length) return undefined;
    const p50 = figures(this.loopP50).p50;
    return {
      n: this.loopP99.length,
      p50,
      p99: Math.round(Math.max(...this.loopP99) * 10) / 10,
      max: Math.round(Math.max(0, ...this.loopMax) * 10) / 10,
    };
  }
}

// ------------------------------------------------------------------ tokens

/** A resolution token as this host signs them: base64url(canonical JSON payload) "." base64url(32-byte MAC). */
const TOKEN = /eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

/**
 * A token counts as handed out expired only when it had expired this long before the fuzzer read
 * the answer (the answer's own time in flight is no fault of the host).
 */
export const EXPIRY_GRACE_MS = 1_000;

export interface SeenToken {
  readonly token: string;
  readonly intent: string;
  readonly expiresAt: string;
  readonly runId: string;
}

/** Every signed token in `text`, with its (unverified) payload. */
export function tokensIn(text: string): SeenToken[] {
  const out: SeenToken[] = [];
  for (const m of text.matchAll(TOKEN)) {
    try {
      const p = JSON.parse(Buffer.from(m[0].split('.')[0]!, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      const text = (v: unknown) => (typeof v === 'string' ? v : '');
      out.push({ token: m[0], intent: text(p.intent), expiresAt: text(p.expiresAt), runId: text(p.runId) });
    } catch {
      // not one of ours
    }
  }
  return out;
}

// ------------------------------------------------------------------ the host's log

/** Reads the host's processes' output incrementally: the lines written since the last read. */
export class LogWatch {
  private readonly offsets = new Map<AppProcess, number>();
  private procs: AppProcess[] = [];

  constructor(procs: readonly AppProcess[]) {
    this.procs = [...procs];
  }

  add(p: AppProcess): void {
    this.procs.push(p);
  }

  get watching(): boolean {
    return this.procs.length > 0;
  }

  /** New output of every process since the previous call, as `[process name, log file, text]`. */
  fresh(): [string, string, string][] {
    const out: [string, string, string][] = [];
    for (const p of this.procs) {
      const all = p.output();
      const from = this.offsets.get(p) ?? 0;
      if (all.length > from) out.push([p.name, p.logFile, all.slice(from)]);
      this.offsets.set(p, all.length);
    }
    return out;
  }
}

/** The first 8 characters of a secret: what a report may show of it. */
export const fingerprint = (s: string) => `${s.slice(0, 8)}…`;

/** Lines of `text` that speak of a dead letter. */
export function deadLetterLines(text: string): string[] {
  return text.split('\n').filter((l) => /dead[-_ ]?letter/i.test(l));
}

/** Ids (uuids: run ids, message ids) a line names. */
export function idsIn(line: string): string[] {
  return [...new Set(line.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [])];
}
