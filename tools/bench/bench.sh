#!/usr/bin/env bash
# `npm run bench`: the full HITL cycle (start → suspended visible → resolve → completed visible),
# sequential and CONC concurrent, against the embedded host and the distributed stack (real Kafka
# with acks=all, Postgres with fsync on), each started fresh here, then the peers of
# ../shared/peers with the same parameters (PEERS=0 skips them), side by side with the ratios.
# Env: N, CONC, REPS, WARMUP, MODES, PEERS. The last line is machine-readable:
#   summary: ours_c20=<cycles/s> best_peer_c20=<cycles/s> ratio=<ours/best> ours_seq_resume_p50_ms=<ms>
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
grep -h '^MEDIAN' "$work"/*.result > "$work/ours.medians"
if [[ "${PEERS:-1}" != 0 ]]; then
  bash tools/bench/peers.sh > "$work/peers.medians" || echo "(peers not run)" >&2
else
  : > "$work/peers.medians"
fi
node tools/bench/compare.mjs "$work/ours.medians" "$work/peers.medians"
