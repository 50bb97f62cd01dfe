#!/usr/bin/env bash
# `npm run bench:waits`: waits at scale (issue 19 item 5) on a fresh distributed stack
# (tools/stack with real Kafka and Postgres, its own database, topic namespace, pid/log directory
# and metrics ports; built and keyed by tools/bench/hosts.sh). tools/bench/waits.mts seeds N runs
# (default 100,000) waiting on approvals, measures RSS per service, the inbox list, resolve on an
# empty vs the loaded host, and a timeout storm of all of them; ends with one `summary:` line.
# Env: N, CONC, PILOT, SLOT_MS, SAFETY, MEASURE_S, LIST_REPS, DEEP_PAGES, RESOLVE_N, STORM_WAIT_S
# (see waits.mts); INSTANCES / INSTANCES_INTERRUPT (default 2 interrupt instances: the timer's claims
# are shared); BENCH_PORT (default 18271; the gateway listens on BENCH_PORT+1); BENCH_WORK_DIR.
# Only the distributed stack: the verification reads the host's Postgres, which PGlite does not serve.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH
# shellcheck source=tools/bench/hosts.sh
source "$root/tools/bench/hosts.sh"
work="${BENCH_WORK_DIR:-$root/.infra/bench-waits}"
# The tree is shared: a build broken by an edit in progress is retried for a while.
for ((try = 1; try <= 20; try++)); do npx --no-install tsc -b tsconfig.build.json >/dev/null 2>&1 && break; sleep 15; done
bench_init "$work"

port=$((${BENCH_PORT:-18271} + 1))
db="openwop_waits_$$"
export STACK_DIR="$work/stack" DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db"
export OPENWOP_NAMESPACE="waits$$" PORT=$port METRICS_BASE_PORT="${METRICS_BASE_PORT:-$((port + 100))}"
export INSTANCES_INTERRUPT="${INSTANCES_INTERRUPT:-2}"
stop() {
  bash tools/stack/stack.sh down >>"$work/stack.log" 2>&1 || true
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
}
trap stop EXIT
bash tools/stack/stack.sh up >"$work/stack.log" 2>&1 || { tail -20 "$work/stack.log" >&2; exit 1; }
bench_wait_ready "http://127.0.0.1:$port"
pids=""
for pidf in "$STACK_DIR"/*.pid; do pids+="$(basename "$pidf" .pid)=$(cat "$pidf"),"; done
WOP_URL="http://127.0.0.1:$port" PIDS="$pids" TENANT=bench node tools/bench/waits.mts | tee "$work/result"
