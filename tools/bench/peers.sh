#!/usr/bin/env bash
# The peer HITL benchmarks of ../shared/peers (LangGraph + Postgres, DBOS, Restate; LangGraph in
# memory as a non-durable reference), run from a copy in .infra/bench-peers with the same N, CONC,
# REPS and WARMUP as ours. The steps are those of the peers' run-all.sh (one at a time, fresh
# databases, fresh Restate data), each benchmark wrapped by tools/bench/cpu-wrap.mts, which adds
# the CPU per cycle of the peer's processes: its node process (harness and library in one), the
# Postgres server when it uses it (shared: counted whole, as for ours), restate-server for Restate.
# Prints their MEDIAN and CPU lines. Needs the npm registry (npm ci of each peer, once) and the
# local Postgres. Usage: bash tools/bench/peers.sh [all|lg|dbos|restate]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="${PEERS_DIR:-$root/../shared/peers}"
dest="$root/.infra/bench-peers"
wrap="$root/tools/bench/cpu-wrap.mts"
if [[ ! -f "$src/run-all.sh" ]]; then
  echo "peers: no peer benchmarks at $src (set PEERS_DIR)" >&2
  exit 1
fi
mkdir -p "$dest"
# Copy the sources only (not results, not node_modules), then install each peer once.
(cd "$src" && tar --exclude=node_modules --exclude='results*' -cf - .) | (cd "$dest" && tar -xf -)
for peer in lg dbos restate; do
  if [[ ! -d "$dest/$peer/node_modules" ]]; then
    (cd "$dest/$peer" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
done
export N="${N:-500}" CONC="${CONC:-20}" REPS="${REPS:-3}" WARMUP="${WARMUP:-50}" DEADLINE_MS="${DEADLINE_MS:-120000}"
cd "$dest"
rm -rf results && mkdir -p results
# A fresh database; retried, since the shared server can be out of connections for a moment.
fresh_db() {
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $1 WITH (FORCE);" -c "CREATE DATABASE $1;" >/dev/null && return 0
    sleep 3
  done
  echo "peers: could not recreate database $1" >&2
}
# run LOG ENV… -- CMD…: one benchmark, its node process counted as "node".
run() {
  local log="$1"
  shift
  env CPU_CHILD=node CPU_KAFKA=0 "$@" > "$dest/results/$log.log" 2>&1 || echo "peers: $log failed (see $dest/results/$log.log)" >&2
}
only="${1:-all}"
if [[ $only == all || $only == lg ]]; then
  (cd lg && run langgraph-memory SAVER=memory CPU_POSTGRES=0 timeout 900 node "$wrap" -- node bench-langgraph.mjs)
  fresh_db lg
  (cd lg && run langgraph-postgres SAVER=postgres CPU_POSTGRES=1 timeout 900 node "$wrap" -- node bench-langgraph.mjs)
  fresh_db lg
  (cd lg && run langgraph-postgres-sync SAVER=postgres DURABILITY=sync CPU_POSTGRES=1 timeout 900 node "$wrap" -- node bench-langgraph.mjs)
fi
if [[ $only == all || $only == dbos ]]; then
  fresh_db dbos_bench
  (cd dbos && run dbos CPU_POSTGRES=1 timeout 900 node "$wrap" -- node bench-dbos.mjs)
fi
if [[ $only == all || $only == restate ]]; then
  restate/stop-restate-server.sh >/dev/null 2>&1 || true
  rm -rf restate/run/restate-data
  if restate/start-restate-server.sh > results/restate-server-start.log 2>&1; then
    (cd restate && run restate RESTATE_LOGGING=WARN CPU_PIDS="restate-server:$(cat run/server.pid)" CPU_POSTGRES=0 \
      timeout 900 node "$wrap" -- node bench-restate.mjs)
  else
    echo "peers: restate start failed (see $dest/results/restate-server-start.log)" >&2
  fi
  restate/stop-restate-server.sh >> results/restate-server-start.log 2>&1 || true
fi
grep -h '^MEDIAN\|^CPU ' results/*.log || { echo "peers: no results (see $dest/results)" >&2; exit 1; }
