// Reads the MEDIAN and CPU lines of our modes and of the peers (harness format: `MEDIAN <name> <phase> :
// … <x> cycles/s | resume p50=<y>ms …`; cpu-wrap.mts: `CPU <name> : <z> ms/cycle …`) and the
// `floor:` line of floor.mts, prints them side by side with ratios to the best durable peer, and
// ends with the machine-readable summary line of `npm run bench` (keys in tools/bench/bench.sh).
// Usage: node compare.mjs OURS PEERS [FLOOR]
import { readFileSync } from 'node:fs';

const NOT_DURABLE = new Set(['langgraph-memory']);
const OURS = new Set(['embedded', 'oneproc', 'distributed']);
const LABEL = {
  embedded: 'ours embedded, PGlite',
  oneproc: 'ours one process, Postgres server',
  distributed: 'ours distributed',
};

const read = (file) => {
  try {
    return file ? readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
};

function parse(text) {
  const rows = [];
  const cpu = new Map();
  const counts = new Map();
  for (const line of text.split('\n')) {
    const m =
      /^MEDIAN (\S+) (seq|c\d+)\s*:.*?(?:err=(\d+) )?([\d.]+) cycles\/s \| resume p50=([\d.]+)ms p99=([\d.]+)ms/.exec(
        line,
      );
    if (m) {
      const [, name, phase, err, rate, p50, p99] = m;
      rows.push({
        name: name.replace(/^openwop-/, ''),
        phase,
        errors: Number(err ?? 0),
        rate: Number(rate),
        p50: Number(p50),
        p99: Number(p99),
      });
    }
    const c = /^CPU (\S+) : ([\d.]+) ms\/cycle over (\d+) cycles \| ?(.*)$/.exec(line);
    if (c) cpu.set(c[1].replace(/^openwop-/, ''), { total: Number(c[2]), cycles: Number(c[3]), parts: c[4] });
    // seq-counts.mts: exact per-cycle counts of the host's processes over the sequential repetitions.
    const k =
      /^COUNTS (\S+) seq : statements=([\d.]+) commits=([\d.]+) produce=([\d.]+) fetch=([\d.]+) over (\d+) cycles/.exec(
        line,
      );
    if (k) {
      const [, name, statements, commits, produce, fetch, cycles] = k;
      counts.set(name.replace(/^openwop-/, ''), {
        statements: Number(statements),
        commits: Number(commits),
        produce: Number(produce),
        fetch: Number(fetch),
        cycles: Number(cycles),
      });
    }
  }
  return { rows, cpu, counts };
}

const [oursFile, peersFile, floorFile] = process.argv.slice(2);
const ours = parse(read(oursFile));
const peers = parse(read(peersFile));
// Ours in a fixed order (embedded, oneproc, distributed), then the peers as they ran.
const order = [...OURS];
const rank = (r) => (OURS.has(r.name) ? order.indexOf(r.name) : order.length);
const rows = [...ours.rows, ...peers.rows].sort((a, b) => rank(a) - rank(b));
const cpu = new Map([...ours.cpu, ...peers.cpu]);
const floor = /^floor: .*cpu_ms_per_cycle=([\d.]+)/m.exec(read(floorFile));
const floorCpu = floor ? Number(floor[1]) : undefined;

const conc = rows.find((r) => r.phase !== 'seq')?.phase ?? 'c20';
const byName = new Map();
for (const r of rows) byName.set(r.name, { ...byName.get(r.name), [r.phase === 'seq' ? 'seq' : 'conc']: r });
const durable = [...byName].filter(([n]) => !OURS.has(n) && !NOT_DURABLE.has(n));
// The best durable peer per figure: highest c20, highest sequential rate, lowest sequential resume p50.
const bestBy = (get, better) =>
  durable.reduce(
    (best, [n, v]) =>
      get(v) !== undefined && (best === undefined || better(get(v), best.value))
        ? { name: n, value: get(v) }
        : best,
    undefined,
  );
const bestConc = bestBy(
  (v) => v.conc?.rate,
  (a, b) => a > b,
);
const bestSeq = bestBy(
  (v) => v.seq?.rate,
  (a, b) => a > b,
);
const bestP50 = bestBy(
  (v) => v.seq?.p50,
  (a, b) => a < b,
);
const fmt = (x, d = 1) => (x === undefined || Number.isNaN(x) ? 'none' : x.toFixed(d));
const ratio = (a, b, d = 2) => (a !== undefined && b ? fmt(a / b, d) : 'none');

console.log('');
console.log(
  `${'host'.padEnd(36)} ${'seq cycles/s'.padStart(13)} ${'resume p50/p99 ms'.padStart(18)} ${(conc + ' cycles/s').padStart(13)} ` +
    `${'ratio to best durable peer'.padStart(27)} ${'CPU ms/cycle'.padStart(13)}  CPU by process (ms/cycle)`,
);
for (const [name, v] of byName) {
  const tag = LABEL[name] ?? (NOT_DURABLE.has(name) ? `${name} (not durable)` : name);
  const c = cpu.get(name);
  console.log(
    `${tag.padEnd(36)} ${fmt(v.seq?.rate).padStart(13)} ${`${fmt(v.seq?.p50)} / ${fmt(v.seq?.p99)}`.padStart(18)} ` +
      `${fmt(v.conc?.rate).padStart(13)} ${ratio(v.conc?.rate, bestConc?.value).padStart(27)} ${fmt(c?.total, 2).padStart(13)}  ${c?.parts ?? ''}` +
      // Failed cycles cost CPU but are not counted as cycles: such a row's figures are not comparable.
      (v.seq?.errors || v.conc?.errors
        ? `  ERRORS seq ${v.seq?.errors ?? 0}, ${conc} ${v.conc?.errors ?? 0} (see .infra/bench)`
        : ''),
  );
}
if (ours.counts.size) {
  console.log('');
  console.log(`counts per sequential cycle (exact; the host's processes, warm-up excluded)`);
  console.log(
    `${'host'.padEnd(36)} ${'statements'.padStart(11)} ${'commits'.padStart(8)} ${'produce'.padStart(8)} ${'fetch'.padStart(8)}  cycles`,
  );
  for (const name of order) {
    const k = ours.counts.get(name);
    if (!k) continue;
    console.log(
      `${LABEL[name].padEnd(36)} ${fmt(k.statements, 2).padStart(11)} ${fmt(k.commits, 2).padStart(8)} ${fmt(k.produce, 2).padStart(8)} ${fmt(k.fetch, 2).padStart(8)}  ${k.cycles}`,
    );
  }
}
if (floorCpu !== undefined) {
  console.log(
    `${'plumbing floor (bench:floor)'.padEnd(36)} ${''.padStart(13)} ${''.padStart(18)} ${''.padStart(13)} ${''.padStart(27)} ${fmt(floorCpu, 2).padStart(13)}  ${floor[0].replace(/^floor: /, '')}`,
  );
}
console.log(
  `CPU: utime+stime from /proc over the measured window (warmup + repetitions) per cycle. Ours: the host's processes ` +
    `(not the load generator), Postgres, the broker; peers: their node process (harness included), Postgres, restate-server. ` +
    `Postgres is the machine's shared server: whatever else used it meanwhile is counted in the row being run.`,
);
console.log(
  `best durable peer (not ${[...NOT_DURABLE].join(', ')}): ${conc} ${bestConc?.name ?? 'none'}, seq ${bestSeq?.name ?? 'none'}, resume p50 ${bestP50?.name ?? 'none'}`,
);

const one = byName.get('oneproc');
const dist = byName.get('distributed');
const emb = byName.get('embedded');
const restate = byName.get('restate');
const distCpu = cpu.get('distributed')?.total;
// Legacy keys: "ours" is the distributed stack when it ran, else the embedded host.
const legacy = dist ?? emb;
const kv = {
  [`ours_oneproc_${conc}`]: fmt(one?.conc?.rate),
  [`best_peer_${conc}`]: fmt(bestConc?.value),
  ratio_oneproc: ratio(one?.conc?.rate, bestConc?.value),
  [`ours_dist_${conc}`]: fmt(dist?.conc?.rate),
  [`restate_${conc}`]: fmt(restate?.conc?.rate),
  ratio_dist: ratio(dist?.conc?.rate, restate?.conc?.rate),
  dist_cpu_ms_per_cycle: fmt(distCpu, 2),
  floor_cpu_ms_per_cycle: fmt(floorCpu, 2),
  ratio_dist_cpu_floor: ratio(distCpu, floorCpu),
  [`ours_embedded_${conc}`]: fmt(emb?.conc?.rate),
  ours_oneproc_seq: fmt(one?.seq?.rate),
  best_peer_seq: fmt(bestSeq?.value),
  ratio_oneproc_seq: ratio(one?.seq?.rate, bestSeq?.value),
  ours_oneproc_resume_p50_ms: fmt(one?.seq?.p50, 2),
  best_peer_resume_p50_ms: fmt(bestP50?.value, 2),
  ratio_oneproc_resume_p50: ratio(one?.seq?.p50, bestP50?.value),
  oneproc_cpu_ms_per_cycle: fmt(cpu.get('oneproc')?.total, 2),
  oneproc_statements_per_cycle: fmt(ours.counts.get('oneproc')?.statements, 2),
  oneproc_commits_per_cycle: fmt(ours.counts.get('oneproc')?.commits, 2),
  embedded_statements_per_cycle: fmt(ours.counts.get('embedded')?.statements, 2),
  embedded_commits_per_cycle: fmt(ours.counts.get('embedded')?.commits, 2),
  dist_statements_per_cycle: fmt(ours.counts.get('distributed')?.statements, 2),
  dist_commits_per_cycle: fmt(ours.counts.get('distributed')?.commits, 2),
  dist_hops_per_cycle: fmt(ours.counts.get('distributed')?.produce, 2),
  [`ours_${conc}`]: fmt(legacy?.conc?.rate),
  ratio: ratio(legacy?.conc?.rate, bestConc?.value),
  ours_seq_resume_p50_ms: fmt(legacy?.seq?.p50, 2),
};
console.log(
  `summary: ${Object.entries(kv)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`,
);
