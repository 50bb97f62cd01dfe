// Reads the MEDIAN lines of our modes and of the peers (harness format: `MEDIAN <name> <phase> :
// … <x> cycles/s | resume p50=<y>ms …`), prints them side by side with ratios to the best durable
// peer, and ends with the machine-readable summary line of `npm run bench`.
import { readFileSync } from 'node:fs';

const NOT_DURABLE = new Set(['langgraph-memory']);
const OURS = new Set(['embedded', 'distributed']);

function parse(file) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const rows = [];
  for (const line of text.split('\n')) {
    const m = /^MEDIAN (\S+) (seq|c\d+)\s*:.*?([\d.]+) cycles\/s \| resume p50=([\d.]+)ms p99=([\d.]+)ms/.exec(line);
    if (m) rows.push({ name: m[1].replace(/^openwop-/, ''), phase: m[2], rate: Number(m[3]), p50: Number(m[4]), p99: Number(m[5]) });
  }
  return rows;
}

const [oursFile, peersFile] = process.argv.slice(2);
const rows = [...parse(oursFile), ...parse(peersFile)];
const conc = rows.find((r) => r.phase !== 'seq')?.phase ?? 'c20';
const byName = new Map();
for (const r of rows) byName.set(r.name, { ...byName.get(r.name), [r.phase === 'seq' ? 'seq' : 'conc']: r });
const durablePeers = [...byName].filter(([n]) => !OURS.has(n) && !NOT_DURABLE.has(n));
const best = durablePeers.map(([, v]) => v.conc?.rate ?? 0).reduce((a, b) => Math.max(a, b), 0);
const fmt = (x, d = 1) => (x === undefined ? '—' : x.toFixed(d));

console.log('');
console.log(`${'host'.padEnd(32)} ${'seq cycles/s'.padStart(13)} ${'resume p50/p99 ms'.padStart(18)} ${(conc + ' cycles/s').padStart(13)} ${'ratio to best durable peer'.padStart(27)}`);
for (const [name, v] of byName) {
  const tag = OURS.has(name) ? `ours ${name}` : NOT_DURABLE.has(name) ? `${name} (not durable)` : name;
  const ratio = best > 0 && v.conc ? fmt(v.conc.rate / best, 2) : '—';
  console.log(
    `${tag.padEnd(32)} ${fmt(v.seq?.rate).padStart(13)} ${`${fmt(v.seq?.p50)} / ${fmt(v.seq?.p99)}`.padStart(18)} ${fmt(v.conc?.rate).padStart(13)} ${ratio.padStart(27)}`,
  );
}
// Ours: the distributed stack when it ran (the issue's target), else the embedded host.
const ours = byName.get('distributed') ?? byName.get('embedded');
const oursConc = ours?.conc?.rate;
console.log(
  `summary: ours_${conc}=${fmt(oursConc)} best_peer_${conc}=${best > 0 ? fmt(best) : 'none'} ` +
    `ratio=${best > 0 && oursConc !== undefined ? fmt(oursConc / best, 2) : 'none'} ours_seq_resume_p50_ms=${fmt(ours?.seq?.p50, 2)}`,
);
