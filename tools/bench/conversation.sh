#!/usr/bin/env bash
# `npm run bench:conversation`: one agent.conversation of TURNS turns (default 10,000) against a fresh
# embedded host and/or distributed stack (tools/bench/hosts.sh): exchange round trip percentiles,
# the full transcript fetch, and the transcript's integrity. Env: TURNS, MODES (default embedded),
# BENCH_PORT (default 18191), BENCH_WORK_DIR, PROGRESS, EXCHANGE_TIMEOUT_MS, FETCH_REPS. Ends with one `summary:` line
# per mode.
#
# With CONVERSATIONS=N (e.g. 64): N conversations at once instead (tools/bench/conversation-concurrent.mts),
# EXCHANGES each (default 5), the host's scripted replies slowed to REPLY_MS (default 1000) each
# (two-word replies, AGENT_TOKEN_DELAY_MS = REPLY_MS / 2): reports agent turns/s.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH TURNS="${TURNS:-10000}" BENCH_PORT="${BENCH_PORT:-18191}"
# shellcheck source=tools/bench/hosts.sh
source "$root/tools/bench/hosts.sh"
work="${BENCH_WORK_DIR:-$root/.infra/bench-conversation}"
bench_init "$work"

script=tools/bench/conversation-bench.mts
if [[ -n "${CONVERSATIONS:-}" ]]; then
  script=tools/bench/conversation-concurrent.mts
  export CONVERSATIONS REPLY_MS="${REPLY_MS:-1000}"
  export AGENT_TOKEN_DELAY_MS=$((REPLY_MS / 2))
fi
for mode in ${MODES:-embedded}; do
  bench_with_host "$mode" node "$script" | tee "$work/$mode.result"
done
grep -h '^summary:' "$work"/*.result
