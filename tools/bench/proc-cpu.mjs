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

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const HZ = 100; // USER_HZ on Linux

function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields after the comm: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
    return { comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), self: +f[11] + +f[12], children: +f[13] + +f[14] };
  } catch {
    return undefined;
  }
}

function snap() {
  const out = {};
  const stackDir = process.env.STACK_DIR ?? join(root, '.infra/stack');
  for (const file of safeList(stackDir).filter((f) => f.endsWith('.pid'))) {
    const s = stat(readFileSync(join(stackDir, file), 'utf8').trim());
    if (s) out[file.slice(0, -4)] = s.self;
  }
  const kafka = safeRead(join(root, '.infra/kafka/broker.pid'));
  const ks = kafka && stat(kafka);
  if (ks) out.kafka = ks.self;
  let pg = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    const s = stat(pid);
    if (s?.comm === 'postgres') pg += s.self + s.children;
  }
  out.postgres = pg;
  return out;
}

const safeList = (dir) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
const safeRead = (file) => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
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
    const ms = ((ticks - (before[name] ?? 0)) * 1000) / HZ;
    total += ms;
    console.log(`${name.padEnd(14)} ${ms.toFixed(0).padStart(7)} ms${cycles ? `  ${(ms / cycles).toFixed(2).padStart(7)} ms/cycle` : ''}`);
  }
  console.log(`${'total'.padEnd(14)} ${total.toFixed(0).padStart(7)} ms${cycles ? `  ${(total / cycles).toFixed(2).padStart(7)} ms/cycle` : ''}`);
} else {
  console.error('usage: proc-cpu.mjs snap | diff BEFORE.json [CYCLES]');
  process.exit(2);
}
