#!/usr/bin/env bash
# The peer HITL benchmarks of ../shared/peers (LangGraph + Postgres, DBOS, Restate; LangGraph in
# memory as a non-durable reference), run from a copy in .infra/bench/peers with the same N, CONC,
# REPS and WARMUP as ours. Prints their MEDIAN lines. Needs the npm registry (npm ci of each peer)
# and the local Postgres. Usage: bash tools/bench/peers.sh [all|lg|dbos|restate]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="${PEERS_DIR:-$root/../shared/peers}"
dest="$root/.infra/bench/peers"
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
rm -rf "$dest/results"
(cd "$dest" && bash run-all.sh "${1:-all}" >/dev/null 2>&1) || true
grep -h '^MEDIAN' "$dest"/results/*.log || { echo "peers: no results (see $dest/results)" >&2; exit 1; }
