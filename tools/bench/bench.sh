#!/usr/bin/env bash
# `npm run bench`: the full HITL cycle (start → suspended visible → resolve → completed visible),
# sequential and CONC concurrent, against the embedded host and the distributed stack (real Kafka
# with acks=all, Postgres with fsync on), each started fresh here. Env: N, CONC, REPS, WARMUP, MODES.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH N="${N:-500}" CONC="${CONC:-20}" REPS="${REPS:-3}" WARMUP="${WARMUP:-20}"
# shellcheck source=tools/bench/hosts.sh
source "$root/tools/bench/hosts.sh"
work="$root/.infra/bench"
bench_init "$work"
modes="${MODES:-embedded distributed}"

for mode in $modes; do
  bench_with_host "$mode" node tools/bench/hitl-bench.mts | tee "$work/$mode.result"
done
grep -h '^MEDIAN' "$work"/*.result
