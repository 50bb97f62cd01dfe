#!/usr/bin/env bash
# `npm run bench:scaleout`: CPU per HITL cycle of each service of the distributed stack with one
# instance of every service, then with two (tools/stack INSTANCES=2), under the same load: CONC
# cycles in flight in total (with two instances, CONC/2 through each gateway), N cycles in total,
# after a warmup through each gateway. CPU is utime+stime from /proc over the load
# (tools/bench/proc-cpu.mjs): every app process (summed per service), the broker and Postgres (all
# backends, reaped ones included). Postgres is a private cluster started here (PRIVATE_PG=1, the
# default: initdb into /tmp, port BENCH_PG_PORT, default 55433, fsync on, stopped at the end), so
# its CPU is this stack's alone; PRIVATE_PG=0 uses the machine's server, shared with others.
# CPU per cycle, not throughput, is the figure to compare on a busy machine: it shows whether a
# second instance adds work per cycle (rebalances, more consumers, more connections).
# A process also uses CPU with no load (heartbeats, idle fetches, timer polls), and a second instance
# doubles that: so each process's idle CPU is measured for IDLE_S seconds before the load, and the
# "net" columns take it off (idle ms/s × the load's wall time), leaving the work the cycles caused.
# Env: N (default 600), CONC (20), WARMUP (20), IDLE_S (10), DATABASE_POOL_SIZE (5 per process here,
# so twelve processes also fit a shared 100-connection server), KAFKA_PARTITIONS (the stack's
# default, 8). The broker is tools/kafka's, shared with whatever else uses it. Prints ms/cycle per service, gross and net of idle, for 1× and 2×, and a last line
#   scaleout: total_1x=<ms> total_2x=<ms> ratio=<2x/1x> apps_net_1x=<ms> apps_net_2x=<ms> ratio_apps_net=<2x/1x>
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH N="${N:-600}" CONC="${CONC:-20}" WARMUP="${WARMUP:-20}" IDLE_S="${IDLE_S:-10}"

# The load against a running stack of $1 instances: called by bench_with_host below.
if [[ "${1:-}" == load ]]; then
  inst="$2" out="$3"
  base="${WOP_URL##*:}"
  for ((i = 0; i < inst; i++)); do
    WOP_URL="http://127.0.0.1:$((base + i))" N="$WARMUP" CONC=1 REPS=1 WARMUP=0 SEQ=0 \
      node tools/bench/hitl-bench.mts >/dev/null
  done
  # What the processes use with no load (heartbeats, idle fetches, timer polls), per second.
  node tools/bench/proc-cpu.mjs snap >"$out.idle.json"
  sleep "$IDLE_S"
  node tools/bench/proc-cpu.mjs diff "$out.idle.json" "$IDLE_S" >"$out.idle"
  node tools/bench/proc-cpu.mjs snap >"$out.before.json"
  t0="$(date +%s.%N)"
  pids=()
  for ((i = 0; i < inst; i++)); do
    WOP_URL="http://127.0.0.1:$((base + i))" N=$((N / inst)) CONC=$((CONC / inst)) REPS=1 WARMUP=0 SEQ=0 \
      node tools/bench/hitl-bench.mts >"$out.load$i" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  t1="$(date +%s.%N)"
  cycles="$(grep -ho '^  rep0 c[0-9]*: done=[0-9]*' "$out".load* | awk -F'done=' '{s += $2} END {print s}')"
  node tools/bench/proc-cpu.mjs diff "$out.before.json" "$cycles" >"$out.cpu"
  echo "$cycles $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >"$out.meta"
  echo "$inst instance(s) of each service: $cycles cycles in $(cut -d' ' -f2 "$out.meta") s;$(grep -h '^  rep0' "$out".load* | sed 's/|.*//' | tr -s ' ' | paste -sd ';')"
  exit 0
fi

# shellcheck source=tools/bench/hosts.sh
source "$root/tools/bench/hosts.sh"
work="$root/.infra/bench-scaleout"
bench_init "$work"
if [[ "${PRIVATE_PG:-1}" != 0 ]]; then
  # A Postgres cluster of its own: its CPU is only this stack's, and its connections are not shared.
  pgbin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  pgdir="$(mktemp -d /tmp/openwop-scaleout-pg.XXXXXX)"
  pgport="${BENCH_PG_PORT:-55433}"
  as_pg() { if [[ "$(id -u)" == 0 ]]; then su postgres -c "$*"; else bash -c "$*"; fi; }
  [[ "$(id -u)" == 0 ]] && chown postgres "$pgdir"
  as_pg "$pgbin/initdb -D $pgdir/data -U postgres --auth=trust >$pgdir/initdb.log 2>&1"
  as_pg "$pgbin/pg_ctl -D $pgdir/data -l $pgdir/server.log -w -o '-p $pgport -k $pgdir -c listen_addresses=127.0.0.1 -c max_connections=200' start >/dev/null"
  trap 'as_pg "$pgbin/pg_ctl -D $pgdir/data -m fast stop" >/dev/null 2>&1; rm -rf "$pgdir"' EXIT
  BENCH_PG="postgres://postgres@127.0.0.1:$pgport"
  PG_POSTMASTER_PID="$(head -1 "$pgdir/data/postmaster.pid")"
  export BENCH_PG PG_POSTMASTER_PID
fi
for inst in 1 2; do
  # One retry: on a busy machine a stack can miss its start deadline (or the shared server its connections).
  for attempt in 1 2; do
    if INSTANCES=$inst DATABASE_POOL_SIZE="${DATABASE_POOL_SIZE:-5}" \
      bench_with_host distributed bash tools/bench/scaleout.sh load "$inst" "$work/x$inst"; then
      break
    fi
    ((attempt == 1)) || { echo "scaleout: the $inst-instance stack failed twice (see $work/stack.log)" >&2; exit 1; }
    echo "scaleout: the $inst-instance stack failed; once more" >&2
  done
done
node - "$work" <<'JS'
const { readFileSync } = require('node:fs');
const work = process.argv[2];
// proc-cpu lines: "<name> <ms> ms  <per> ms/cycle"; services summed over their instances.
const perService = (file) => {
  const out = {};
  for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
    const [name, , , per] = line.trim().split(/\s+/);
    if (name === 'total') continue;
    const svc = name.replace(/-\d+$/, '');
    out[svc] = (out[svc] ?? 0) + Number(per);
  }
  return out;
};
const run = (x) => {
  const [cycles, wall] = readFileSync(`${work}/${x}.meta`, 'utf8').trim().split(' ').map(Number);
  const gross = perService(`${work}/${x}.cpu`);
  const idle = perService(`${work}/${x}.idle`); // ms per second
  const net = Object.fromEntries(Object.entries(gross).map(([k, v]) => [k, v - ((idle[k] ?? 0) * wall) / cycles]));
  return { cycles, wall, gross, idle, net };
};
const a = run('x1');
const b = run('x2');
const services = [...new Set([...Object.keys(a.gross), ...Object.keys(b.gross)])].sort();
const f = (x, d = 2) => (x === undefined || Number.isNaN(x) ? 'none' : x.toFixed(d));
const pad = (s, n) => String(s).padStart(n);
console.log('');
console.log(`ms of CPU per cycle; "net" takes off each process's idle CPU (measured for ${process.env.IDLE_S} s before the load) over the load's wall time`);
console.log(`${'service'.padEnd(10)}${pad('1x gross', 10)}${pad('1x net', 10)}${pad('2x gross', 10)}${pad('2x net', 10)}${pad('2x/1x net', 11)}${pad('idle ms/s 1x', 14)}${pad('2x', 8)}`);
const sum = (o, keys) => keys.reduce((s, k) => s + (o[k] ?? 0), 0);
const apps = services.filter((s) => s !== 'kafka' && s !== 'postgres');
const rows = [...services.map((s) => [s, [s]]), ['apps', apps], ['total', services]];
for (const [label, keys] of rows) {
  const [g1, n1, g2, n2] = [sum(a.gross, keys), sum(a.net, keys), sum(b.gross, keys), sum(b.net, keys)];
  console.log(`${label.padEnd(10)}${pad(f(g1), 10)}${pad(f(n1), 10)}${pad(f(g2), 10)}${pad(f(n2), 10)}${pad(f(n2 / n1), 11)}${pad(f(sum(a.idle, keys), 1), 14)}${pad(f(sum(b.idle, keys), 1), 8)}`);
}
console.log(`1x: ${a.cycles} cycles in ${a.wall} s (${f(a.cycles / a.wall, 1)}/s); 2x: ${b.cycles} cycles in ${b.wall} s (${f(b.cycles / b.wall, 1)}/s)`);
const t = (r, o) => sum(o, services);
console.log(
  `scaleout: total_1x=${f(t(a, a.gross))} total_2x=${f(t(b, b.gross))} ratio=${f(t(b, b.gross) / t(a, a.gross))} ` +
    `apps_net_1x=${f(sum(a.net, apps))} apps_net_2x=${f(sum(b.net, apps))} ratio_apps_net=${f(sum(b.net, apps) / sum(a.net, apps))}`,
);
JS
