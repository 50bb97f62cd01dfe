#!/usr/bin/env node
/**
 * CPU used by each process of a running distributed stack, from /proc (utime + stime, children
 * reaped by Postgres' postmaster included), so a load run's cost can be read per process:
 *   node tools/bench/proc-cpu.mjs snap > before.json
 *   … load …
 *   node tools/bench/proc-cpu.mjs diff before.json [CYCLES]
 * `diff` prints CPU ms per process (and per cycle when CYCLES is given) since the snapshot.
 * Processes: every pid file in .infra/stack (the apps; STACK_DIR overrides), .infra/kafka/broker.pid, and all
 * `postgres` processes. Linux only.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brokerPid, postgresTicks, procTicks, ticksToMs } from './proc-stat.mts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

function snap() {
  const out = {};
  const stackDir = process.env.STACK_DIR ?? join(root, '.infra/stack');
  for (const file of safeList(stackDir).filter((f) => f.endsWith('.pid'))) {
    const s = procTicks(readFileSync(join(stackDir, file), 'utf8').trim());
    if (s) out[file.slice(0, -4)] = s.self;
  }
  const kafka = brokerPid();
  const ks = kafka && procTicks(kafka);
  if (ks) out.kafka = ks.self;
  out.postgres = postgresTicks();
  return out;
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
    console.log(`${name.padEnd(14)} ${ms.toFixed(0).padStart(7)} ms${cycles ? `  ${(ms / cycles).toFixed(2).padStart(7)} ms/cycle` : ''}`);
  }
  console.log(`${'total'.padEnd(14)} ${total.toFixed(0).padStart(7)} ms${cycles ? `  ${(total / cycles).toFixed(2).padStart(7)} ms/cycle` : ''}`);
} else {
  console.error('usage: proc-cpu.mjs snap | diff BEFORE.json [CYCLES]');
  process.exit(2);
}
