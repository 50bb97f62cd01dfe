#!/usr/bin/env node
/**
 * Ranks self time in V8 CPU profiles (`.cpuprofile`, from `NODE_OPTIONS="--cpu-prof --cpu-prof-dir=DIR"`),
 * by function and by where the code lives (an npm package, a lib or app of this repo, node's own):
 *   node tools/bench/profile-top.mjs [--top N] [--incl REGEX]… FILE.cpuprofile…
 * Several files (the restarts of one service) are summed. Self time is the sum of the sampling
 * intervals whose leaf frame is the function. `(idle)`, `(program)` and `(garbage collector)` are
 * V8's own buckets; the shares are of the non-idle time. `--incl REGEX` (repeatable) adds the
 * inclusive time of the samples with a frame whose `name url` matches (each sample counted once).
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
let top = 30;
const files = [];
const inclusive = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else if (args[i] === '--incl') inclusive.push({ re: new RegExp(args[++i]), us: 0 });
  else files.push(args[i]);
}
if (files.length === 0) {
  console.error('usage: profile-top.mjs [--top N] FILE.cpuprofile…');
  process.exit(2);
}

/** Where a frame's code lives: `pkg:<name>`, `libs/<x>`, `apps/<x>`, `node:<module>`, or a V8 bucket. */
function place(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return `pkg:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const m = /\/(libs|apps)\/([^/]+)\//.exec(url);
  if (m) return `${m[1]}/${m[2]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

const byFunction = new Map();
const byPlace = new Map();
let total = 0;
let idle = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time before sample i; attribute the interval after it to sample i.
    const dt = timeDeltas[i + 1] ?? 0;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + dt);
  }
  for (const [id, us] of selfUs) {
    const { callFrame: f } = nodes.get(id);
    if (f.functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    for (const inc of inclusive) {
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const cf = nodes.get(at).callFrame;
        if (inc.re.test(`${cf.functionName} ${cf.url}`)) {
          inc.us += us;
          break;
        }
      }
    }
    const shortUrl = f.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(libs|apps)\//, '$1/');
    const key = `${f.functionName || '(anonymous)'} ${shortUrl}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const p = place(f.url, f.functionName);
    byPlace.set(p, (byPlace.get(p) ?? 0) + us);
  }
}

const ms = (us) => (us / 1000).toFixed(0).padStart(7);
const pct = (us) => ((100 * us) / total).toFixed(1).padStart(5);
console.log(`busy ${ms(total)} ms, idle ${ms(idle)} ms, ${files.length} file(s)`);
for (const inc of inclusive) console.log(`inclusive ${ms(inc.us)} ms ${pct(inc.us)} %  /${inc.re.source}/`);
console.log('\n-- self time by place --');
for (const [k, us] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${ms(us)} ms ${pct(us)} %  ${k}`);
console.log('\n-- self time by function --');
for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${ms(us)} ms ${pct(us)} %  ${k}`);
