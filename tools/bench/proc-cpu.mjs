#!/usr/bin/env node
/**
 * CPU used by each process of a running distributed stack, from /proc (utime + stime, children
 * reaped by Postgres' postmaster included), so a load run's cost can be read per process:
 *   node tools/bench/proc-cpu.mjs snap > before.json
 *   … load …
 *   node tools/bench/proc-cpu.mjs diff before.json [CYCLES]
 * `diff` prints CPU ms per process (and per cycle when CYCLES is given) since the snapshot.
 * `ctx-snap` / `ctx-diff BEFORE.json [CYCLES]` do the same for context switches (voluntary and
 * nonvoluntary, summed over every thread of the process: /proc/<pid>/task/<tid>/status).
 * Processes: every pid file in .infra/stack (the apps; STACK_DIR overrides), .infra/kafka/broker.pid, and all
 * `postgres` processes. Linux only.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brokerPid, postgresTicks, procTicks, ticksToMs } from './proc-stat.mts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** The stack's app processes: name (`engine-1`, …) → pid. */
function appPids() {
  const out = {};
  const stackDir = process.env.STACK_DIR ?? join(root, '.infra/stack');
  for (const file of safeList(stackDir).filter((f) => f.endsWith('.pid'))) {
    out[file.slice(0, -4)] = readFileSync(join(stackDir, file), 'utf8').trim();
  }
  return out;
}

function snap() {
  const out = {};
  for (const [name, pid] of Object.entries(appPids())) {
    const s = procTicks(pid);
    if (s) out[name] = s.self;
  }
  const kafka = brokerPid();
  const ks = kafka && procTicks(kafka);
  if (ks) out.kafka = ks.self;
  out.postgres = postgresTicks();
  return out;
}

/** Voluntary and nonvoluntary context switches of every thread of `pid`, or undefined when it is gone. */
function ctxSwitches(pid) {
  const sum = [0, 0];
  let any = false;
  for (const tid of safeList(`/proc/${pid}/task`)) {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    any = true;
    sum[0] += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(text)?.[1] ?? 0);
    sum[1] += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(text)?.[1] ?? 0);
  }
  return any ? sum : undefined;
}

/** Context switches of the same processes as {@link snap}: Postgres summed over its live processes. */
function ctxSnap() {
  const out = {};
  for (const [name, pid] of Object.entries(appPids())) {
    const c = ctxSwitches(pid);
    if (c) out[name] = c;
  }
  const kafka = brokerPid();
  const kc = kafka && ctxSwitches(kafka);
  if (kc) out.kafka = kc;
  const only = process.env.PG_POSTMASTER_PID;
  const pg = [0, 0];
  for (const pid of safeList('/proc').filter((p) => /^\d+$/.test(p))) {
    const s = procTicks(pid);
    if (s?.comm !== 'postgres') continue;
    if (only && pid !== only && parentPid(pid) !== only) continue;
    const c = ctxSwitches(pid);
    if (c) {
      pg[0] += c[0];
      pg[1] += c[1];
    }
  }
  out.postgres = pg;
  return out;
}

function parentPid(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    return undefined;
  }
}

const safeList = (dir) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

const [cmd, file, cyclesArg] = process.argv.slice(2);
if (cmd === 'snap') {
  process.stdout.write(JSON.stringify(snap()) + '\n');
} else if (cmd === 'diff' && file) {
  const before = JSON.parse(readFileSync(file, 'utf8'));
  const after = snap();
  const cycles = cyclesArg ? Number(cyclesArg) : 0;
  let total = 0;
  for (const [name, ticks] of Object.entries(after)) {
    const ms = ticksToMs(ticks - (before[name] ?? 0));
    total += ms;
    console.log(
      `${name.padEnd(14)} ${ms.toFixed(0).padStart(7)} ms${cycles ? `  ${(ms / cycles).toFixed(2).padStart(7)} ms/cycle` : ''}`,
    );
  }
  console.log(
    `${'total'.padEnd(14)} ${total.toFixed(0).padStart(7)} ms${cycles ? `  ${(total / cycles).toFixed(2).padStart(7)} ms/cycle` : ''}`,
  );
} else if (cmd === 'ctx-snap') {
  process.stdout.write(JSON.stringify(ctxSnap()) + '\n');
} else if (cmd === 'ctx-diff' && file) {
  // "<name> <voluntary> <nonvoluntary>" per process, per cycle when CYCLES is given.
  const before = JSON.parse(readFileSync(file, 'utf8'));
  const after = ctxSnap();
  const per = cyclesArg ? Number(cyclesArg) : 1;
  for (const [name, [v, n]] of Object.entries(after)) {
    const [v0, n0] = before[name] ?? [0, 0];
    console.log(
      `${name.padEnd(14)} ${((v - v0) / per).toFixed(2).padStart(9)} ${((n - n0) / per).toFixed(2).padStart(9)}`,
    );
  }
} else {
  console.error(
    'usage: proc-cpu.mjs snap | diff BEFORE.json [CYCLES] | ctx-snap | ctx-diff BEFORE.json [CYCLES]',
  );
  process.exit(2);
}
