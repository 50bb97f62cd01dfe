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
# so twelve processes also fit a shared 100-connection server), SCALEOUT_WORK (its work directory, default
# .infra/bench-scaleout), KAFKA_PARTITIONS (the stack's
# default, 8). The broker is tools/kafka's, shared with whatever else uses it. Prints ms/cycle per service, gross and net of idle, for 1× and 2×, and a last line
#   scaleout: total_1x=<ms> total_2x=<ms> ratio=<2x/1x> apps_net_1x=<ms> apps_net_2x=<ms> ratio_apps_net=<2x/1x>
# COUNT=1 also loads tools/bench/count-requests.cjs into every app process and prints, before the
# CPU table, per service and summed over its instances: Postgres statements and Kafka requests by
# API per cycle of the load and per second of the idle window, for 1× and 2×, the idle statements by
# text, and context switches (voluntary / nonvoluntary, all threads, from /proc) per cycle and per
# idle second of every process group (apps, broker, Postgres).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH N="${N:-600}" CONC="${CONC:-20}" WARMUP="${WARMUP:-20}" IDLE_S="${IDLE_S:-10}"

# The load against a running stack of $1 instances: called by bench_with_host below.
if [[ "${1:-}" == load ]]; then
  inst="$2" out="$3"
  base="${WOP_URL##*:}"
  unset NODE_OPTIONS # the count preload is for the apps (COUNT=1), not for the bench's own tools
  # COUNT=1: every app writes what it counted since the last signal into COUNT_DIR on SIGUSR2 (and
  # starts over); the files are moved to $1, one per instance, once all of them are there.
  counts() {
    [[ "${COUNT:-0}" == 1 ]] || return 0
    local pids=() f n deadline=$((SECONDS + 15))
    for f in "$STACK_DIR"/*.pid; do pids+=("$(cat "$f")"); done
    rm -rf "$COUNT_DIR" && mkdir -p "$COUNT_DIR"
    kill -USR2 "${pids[@]}"
    until n="$(find "$COUNT_DIR" -name '*.json' | wc -l)" && ((n >= ${#pids[@]})); do
      ((SECONDS < deadline)) || { echo "scaleout: only $n of ${#pids[@]} processes wrote their counts" >&2; break; }
      sleep 0.1
    done
    rm -rf "$1" && mkdir -p "$1" && mv "$COUNT_DIR"/*.json "$1"/
  }
  for ((i = 0; i < inst; i++)); do
    WOP_URL="http://127.0.0.1:$((base + i))" N="$WARMUP" CONC=1 REPS=1 WARMUP=0 SEQ=0 \
      node tools/bench/hitl-bench.mts >/dev/null
  done
  # What the processes use with no load (heartbeats, idle fetches, timer polls), per second.
  counts "$out.count-warmup"
  node tools/bench/proc-cpu.mjs snap >"$out.idle.json"
  node tools/bench/proc-cpu.mjs ctx-snap >"$out.idle-ctx.json"
  sleep "$IDLE_S"
  node tools/bench/proc-cpu.mjs diff "$out.idle.json" "$IDLE_S" >"$out.idle"
  node tools/bench/proc-cpu.mjs ctx-diff "$out.idle-ctx.json" "$IDLE_S" >"$out.idle-ctx"
  counts "$out.count-idle"
  node tools/bench/proc-cpu.mjs snap >"$out.before.json"
  node tools/bench/proc-cpu.mjs ctx-snap >"$out.before-ctx.json"
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
  node tools/bench/proc-cpu.mjs ctx-diff "$out.before-ctx.json" "$cycles" >"$out.ctx"
  counts "$out.count-load"
  echo "$cycles $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >"$out.meta"
  echo "$inst instance(s) of each service: $cycles cycles in $(cut -d' ' -f2 "$out.meta") s;$(grep -h '^  rep0' "$out".load* | sed 's/|.*//' | tr -s ' ' | paste -sd ';')"
  exit 0
fi

# shellcheck source=tools/bench/hosts.sh
source "$root/tools/bench/hosts.sh"
work="${SCALEOUT_WORK:-$root/.infra/bench-scaleout}" # its own when another scaleout runs at the same time
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
# COUNT=1: the apps the stack starts load the counting preload (the load step unsets it for its tools).
app_node_options="${NODE_OPTIONS:-}"
if [[ "${COUNT:-0}" == 1 ]]; then
  app_node_options="${app_node_options:+$app_node_options }--require $root/tools/bench/count-requests.cjs"
fi
for inst in 1 2; do
  # One retry: on a busy machine a stack can miss its start deadline (or the shared server its connections).
  for attempt in 1 2; do
    if NODE_OPTIONS="$app_node_options" COUNT_DIR="$work/counting-x$inst" INSTANCES=$inst \
      DATABASE_POOL_SIZE="${DATABASE_POOL_SIZE:-5}" \
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
if (process.env.COUNT === '1') printCounts();
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

/** COUNT=1: requests and context switches per cycle of the load and per second of the idle window. */
function printCounts() {
  const { readdirSync, existsSync } = require('node:fs');
  // count-requests.cjs files, one per instance (`<app>-<i>-<pid>.json`), summed per service.
  const counted = (dir) => {
    const out = {};
    if (!existsSync(dir)) return out;
    for (const file of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
      const c = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
      const svc = file.replace(/(-\d+)+\.json$/, '');
      const o = (out[svc] ??= { pg: 0, kafka: {}, pgText: {} });
      o.pg += c.pg;
      for (const [api, k] of Object.entries(c.kafka)) o.kafka[api] = (o.kafka[api] ?? 0) + k;
      for (const [text, k] of Object.entries(c.pgText)) o.pgText[text] = (o.pgText[text] ?? 0) + k;
    }
    return out;
  };
  // proc-cpu ctx-diff lines: "<name> <voluntary> <nonvoluntary>", already per cycle or per second.
  const ctx = (file) => {
    const out = {};
    if (!existsSync(file)) return out;
    for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
      const [name, v, n] = line.trim().split(/\s+/);
      const svc = name.replace(/-\d+$/, '');
      const o = (out[svc] ??= [0, 0]);
      o[0] += Number(v);
      o[1] += Number(n);
    }
    return out;
  };
  const load = { 1: counted(`${work}/x1.count-load`), 2: counted(`${work}/x2.count-load`) };
  const idle = { 1: counted(`${work}/x1.count-idle`), 2: counted(`${work}/x2.count-idle`) };
  const idleS = Number(process.env.IDLE_S);
  const growth = (x, y) => (x > 0 ? f(y / x) : y > 0 ? 'new' : '');
  console.log('');
  console.log(`requests (COUNT=1), summed per service: per cycle of the load, and per second of the ${idleS} s idle window`);
  console.log(`${'service'.padEnd(10)}${'request'.padEnd(22)}${pad('1x/cycle', 10)}${pad('2x/cycle', 10)}${pad('2x/1x', 8)}${pad('idle/s 1x', 11)}${pad('2x', 8)}`);
  const svcs = [...new Set([load[1], load[2], idle[1], idle[2]].flatMap((o) => Object.keys(o)))].sort();
  const tot = { l1: 0, l2: 0, i1: 0, i2: 0 };
  for (const svc of svcs) {
    const apis = [...new Set([load[1], load[2], idle[1], idle[2]].flatMap((o) => Object.keys(o[svc]?.kafka ?? {})))].sort();
    const rows = [['pg statements', (o) => o[svc]?.pg], ...apis.map((api) => [`kafka ${api}`, (o) => o[svc]?.kafka[api]])];
    for (const [label, get] of rows) {
      const [l1, l2, i1, i2] = [get(load[1]) ?? 0, get(load[2]) ?? 0, get(idle[1]) ?? 0, get(idle[2]) ?? 0];
      if (label.startsWith('kafka')) {
        tot.l1 += l1;
        tot.l2 += l2;
        tot.i1 += i1;
        tot.i2 += i2;
      }
      console.log(
        `${svc.padEnd(10)}${label.padEnd(22)}${pad(f(l1 / a.cycles), 10)}${pad(f(l2 / b.cycles), 10)}${pad(growth(l1 / a.cycles, l2 / b.cycles), 8)}` +
          `${pad(f(i1 / idleS, 1), 11)}${pad(f(i2 / idleS, 1), 8)}`,
      );
    }
  }
  console.log(
    `${'all'.padEnd(10)}${'kafka requests'.padEnd(22)}${pad(f(tot.l1 / a.cycles), 10)}${pad(f(tot.l2 / b.cycles), 10)}` +
      `${pad(growth(tot.l1 / a.cycles, tot.l2 / b.cycles), 8)}${pad(f(tot.i1 / idleS, 1), 11)}${pad(f(tot.i2 / idleS, 1), 8)}`,
  );
  console.log('');
  console.log('idle statements per second by text, 1x (what the polls cost)');
  for (const svc of svcs) {
    const top = Object.entries(idle[1][svc]?.pgText ?? {}).sort((x, y) => y[1] - x[1]).slice(0, 6);
    for (const [text, k] of top) console.log(`${svc.padEnd(10)}${pad(f(k / idleS, 1), 6)}  ${text}`);
  }
  const c1 = ctx(`${work}/x1.ctx`);
  const c2 = ctx(`${work}/x2.ctx`);
  const ci1 = ctx(`${work}/x1.idle-ctx`);
  const ci2 = ctx(`${work}/x2.idle-ctx`);
  console.log('');
  console.log('context switches, voluntary / nonvoluntary, all threads: per cycle of the load, and per idle second');
  console.log(`${'process'.padEnd(10)}${pad('1x/cycle', 16)}${pad('2x/cycle', 16)}${pad('idle/s 1x', 16)}${pad('2x', 16)}`);
  const pair = (x) => (x ? `${f(x[0], 1)} / ${f(x[1], 1)}` : 'none');
  for (const svc of [...new Set([...Object.keys(c1), ...Object.keys(c2)])].sort()) {
    console.log(`${svc.padEnd(10)}${pad(pair(c1[svc]), 16)}${pad(pair(c2[svc]), 16)}${pad(pair(ci1[svc]), 16)}${pad(pair(ci2[svc]), 16)}`);
  }
}
console.log(`1x: ${a.cycles} cycles in ${a.wall} s (${f(a.cycles / a.wall, 1)}/s); 2x: ${b.cycles} cycles in ${b.wall} s (${f(b.cycles / b.wall, 1)}/s)`);
const t = (r, o) => sum(o, services);
console.log(
  `scaleout: total_1x=${f(t(a, a.gross))} total_2x=${f(t(b, b.gross))} ratio=${f(t(b, b.gross) / t(a, a.gross))} ` +
    `apps_net_1x=${f(sum(a.net, apps))} apps_net_2x=${f(sum(b.net, apps))} ratio_apps_net=${f(sum(b.net, apps) / sum(a.net, apps))}`,
);
JS
