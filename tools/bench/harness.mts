/**
 * The bounded HITL cycle harness, measured the way the peer benchmarks are (N cycles sequential,
 * then N with CONC in flight; p50/p99 of the resume call and of the full cycle; the median of REPS
 * repetitions after WARMUP cycles). An adapter supplies start (resolves once the run is suspended
 * and visible) and resume (resolves once the resumed run is completed and visible).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { SequentialCounts } from './seq-counts.mts';

export interface CycleAdapter {
  start(id: string): Promise<void>;
  resume(id: string): Promise<void>;
}

export interface PhaseResult {
  done: number;
  errors: number;
  wall_s: number;
  cycles_per_s: number;
  start_p50: number;
  start_p99: number;
  resume_p50: number;
  resume_p99: number;
  cycle_p50: number;
  cycle_p99: number;
}

export const benchEnv = {
  N: Number(process.env.N ?? 500),
  CONC: Number(process.env.CONC ?? 20),
  REPS: Number(process.env.REPS ?? 3),
  WARMUP: Number(process.env.WARMUP ?? 20),
  DEADLINE_MS: Number(process.env.DEADLINE_MS ?? 120_000),
  /** SEQ=0 skips the sequential phases (a load of CONC in flight only, e.g. bench:scaleout). */
  SEQ: process.env.SEQ !== '0',
};

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[(s.length - 1) >> 1]! * 0.5 + s[s.length >> 1]! * 0.5 : Number.NaN;
}

async function phase(
  adapter: CycleAdapter,
  prefix: string,
  n: number,
  conc: number,
  deadlineMs: number,
): Promise<PhaseResult> {
  const startLat: number[] = [];
  const resumeLat: number[] = [];
  const cycleLat: number[] = [];
  let next = 0;
  let done = 0;
  let errors = 0;
  let firstErr: unknown;
  const t0 = performance.now();
  const deadline = t0 + deadlineMs;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n || performance.now() > deadline) return;
      try {
        const a = performance.now();
        await adapter.start(`${prefix}-${i}`);
        const b = performance.now();
        await adapter.resume(`${prefix}-${i}`);
        const c = performance.now();
        startLat.push(b - a);
        resumeLat.push(c - b);
        cycleLat.push(c - a);
        done++;
      } catch (e) {
        errors++;
        firstErr ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: conc }, worker));
  const wall = performance.now() - t0;
  for (const a of [startLat, resumeLat, cycleLat]) a.sort((x, y) => x - y);
  if (firstErr) console.error(`[${prefix}] first error:`, firstErr);
  return {
    done,
    errors,
    wall_s: wall / 1000,
    cycles_per_s: done / (wall / 1000),
    start_p50: pct(startLat, 50),
    start_p99: pct(startLat, 99),
    resume_p50: pct(resumeLat, 50),
    resume_p99: pct(resumeLat, 99),
    cycle_p50: pct(cycleLat, 50),
    cycle_p99: pct(cycleLat, 99),
  };
}

export const fmt = (r: PhaseResult): string =>
  `done=${r.done} err=${r.errors} ${r.cycles_per_s.toFixed(1)} cycles/s | resume p50=${r.resume_p50.toFixed(2)}ms p99=${r.resume_p99.toFixed(2)}ms | start p50=${r.start_p50.toFixed(2)}ms | cycle p50=${r.cycle_p50.toFixed(2)}ms p99=${r.cycle_p99.toFixed(2)}ms`;

/** Runs warmup, then REPS × (sequential, concurrent); prints each and the medians; returns the medians. */
export async function runBench(
  name: string,
  adapter: CycleAdapter,
): Promise<{ seq: PhaseResult; conc: PhaseResult }> {
  const { N, CONC, REPS, WARMUP, DEADLINE_MS, SEQ } = benchEnv;
  const tag = `${name}-${process.pid}-${Date.now().toString(36)}`;
  console.log(`# ${name}: N=${N} CONC=${CONC} REPS=${REPS} WARMUP=${WARMUP} DEADLINE_MS=${DEADLINE_MS}`);
  await phase(adapter, `${tag}-warm`, WARMUP, 1, DEADLINE_MS);
  // The host's statements, commits and Kafka requests over the sequential repetitions only (COUNT_DIR).
  const counts = SEQ ? SequentialCounts.fromEnv() : undefined;
  const seq: PhaseResult[] = [];
  const conc: PhaseResult[] = [];
  for (let r = 0; r < REPS; r++) {
    if (SEQ) {
      await counts?.begin();
      const s = await phase(adapter, `${tag}-s${r}`, N, 1, DEADLINE_MS);
      await counts?.end(s.done);
      console.log(`  rep${r} seq : ${fmt(s)}`);
      seq.push(s);
    }
    const c = await phase(adapter, `${tag}-c${r}`, N, CONC, DEADLINE_MS);
    console.log(`  rep${r} c${CONC}: ${fmt(c)}`);
    conc.push(c);
  }
  const med = (rs: PhaseResult[]): PhaseResult => {
    const out = {} as Record<keyof PhaseResult, number>;
    for (const k of Object.keys(rs[0]!) as (keyof PhaseResult)[]) out[k] = median(rs.map((x) => x[k]));
    return out;
  };
  const summary = { seq: SEQ ? med(seq) : med(conc), conc: med(conc) };
  if (SEQ) console.log(`MEDIAN ${name} seq : ${fmt(summary.seq)}`);
  if (counts) {
    writeFileSync(
      `${process.env['COUNT_DIR']}.statements.txt`,
      `${counts.byProcessLines()}\n\n${counts.statementsByText()}\n`,
    );
    console.log(counts.line(name));
  }
  console.log(`MEDIAN ${name} c${CONC}: ${fmt(summary.conc)}`);
  return summary;
}
