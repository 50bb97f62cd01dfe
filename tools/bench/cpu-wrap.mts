/**
 * Runs one HITL benchmark (ours `hitl-bench.mts` or a peer's `bench-*.mjs`, both print the harness
 * format) and measures the CPU of the row's processes over its measured part, from /proc
 * (utime + stime, children reaped by a counted process included):
 *   node tools/bench/cpu-wrap.mts -- CMD ARGS…
 * Env: CPU_PIDS ("label:pid label:pid …": each pid with all its descendants, summed per label),
 * CPU_CHILD (a label: count CMD's own process tree under it; unset: CMD itself is not counted, as
 * for our load generator), CPU_POSTGRES=1 (every `postgres` process of the machine, reaped backends
 * included; a shared server, so whatever else uses it meanwhile is counted too), CPU_KAFKA=1 (the
 * broker of tools/kafka), WARMUP (the cycles the harness runs before its repetitions).
 * The window opens at the harness's `# NAME: N=…` line (after startup, before the warmup) and closes
 * at its first `MEDIAN` line; the cycles are the warmup plus every `done=` of the repetitions.
 * Passes CMD's output through and adds one line:
 *   CPU <name> : <x> ms/cycle over <cycles> cycles | <label>=<ms/cycle> …
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { brokerPid, postgresTicks, procTicks, ticksToMs } from './proc-stat.mts';

const sep = process.argv.indexOf('--');
const cmd = process.argv.slice(sep >= 0 ? sep + 1 : 2);
if (!cmd.length) {
  console.error('usage: cpu-wrap.mts -- CMD ARGS…');
  process.exit(2);
}

/** Ticks (self + reaped children) of `root` and every live descendant. */
function treeTicks(root: number, parents: Map<number, number>): number {
  let sum = 0;
  const stack = [root];
  const seen = new Set<number>();
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const t = procTicks(pid);
    if (t) sum += t.self + t.children;
    for (const [child, parent] of parents) if (parent === pid) stack.push(child);
  }
  return sum;
}

/** pid → ppid of every process. */
function parentMap(): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      // ppid is the second field after the parenthesised comm.
      const text = readFileSync(`/proc/${p}/stat`, 'utf8');
      out.set(Number(p), Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const labelled: Array<[string, number]> = (process.env['CPU_PIDS'] ?? '')
  .split(/\s+/)
  .filter(Boolean)
  .map((t) => {
    const i = t.lastIndexOf(':');
    return [i > 0 ? t.slice(0, i) : 'host', Number(t.slice(i + 1))] as [string, number];
  });
const childLabel = process.env['CPU_CHILD'];
const withPostgres = process.env['CPU_POSTGRES'] === '1';
const broker = process.env['CPU_KAFKA'] === '1' ? brokerPid() : undefined;

const child = spawn(cmd[0]!, cmd.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });

function snap(): Record<string, number> {
  const parents = parentMap();
  const out: Record<string, number> = {};
  for (const [label, pid] of labelled) out[label] = (out[label] ?? 0) + treeTicks(pid, parents);
  if (childLabel && child.pid) out[childLabel] = (out[childLabel] ?? 0) + treeTicks(child.pid, parents);
  if (withPostgres) out['postgres'] = postgresTicks();
  if (broker) out['kafka'] = treeTicks(Number(broker), parents);
  return out;
}

let name = 'unknown';
let before: Record<string, number> | undefined;
let after: Record<string, number> | undefined;
let cycles = Number(process.env['WARMUP'] ?? 0);
const lines = createInterface({ input: child.stdout });
lines.on('line', (line) => {
  // Snapshot first, then echo, so the window is as tight as the pipe allows.
  const head = /^# (\S+): N=/.exec(line);
  if (head && !before) {
    name = head[1]!;
    before = snap();
  } else if (/^MEDIAN /.test(line) && before && !after) {
    after = snap();
  }
  const rep = /^\s+rep\d+ (?:seq|c\d+)\s*: done=(\d+)/.exec(line);
  if (rep && !after) cycles += Number(rep[1]);
  process.stdout.write(line + '\n');
});

const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
if (before && after && cycles > 0) {
  const parts = Object.keys(after).map((k) => {
    const ms = ticksToMs(after![k]! - (before![k] ?? 0));
    return [k, ms / cycles] as const;
  });
  const total = parts.reduce((s, [, v]) => s + v, 0);
  console.log(
    `CPU ${name} : ${total.toFixed(2)} ms/cycle over ${cycles} cycles | ` +
      parts.map(([k, v]) => `${k}=${v.toFixed(2)}`).join(' '),
  );
} else {
  console.log(`CPU ${name} : none (no measured window)`);
}
process.exit(code);
