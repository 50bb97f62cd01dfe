#!/usr/bin/env bash
# `npm run bench`: the full HITL cycle (start → suspended visible → resolve → completed visible),
# sequential and CONC concurrent, against the embedded host and the distributed stack (real Kafka
# with acks=all, Postgres with fsync on), each started fresh here. Env: N, CONC, REPS, WARMUP, MODES.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH N="${N:-500}" CONC="${CONC:-20}" REPS="${REPS:-3}" WARMUP="${WARMUP:-20}"
npx --no-install tsc -b tsconfig.build.json
work="$root/.infra/bench"
rm -rf "$work" && mkdir -p "$work"
key="bench_$(node -e "process.stdout.write(require('crypto').randomBytes(16).toString('hex'))")"
export WOP_API_KEYS="[{\"key\":\"$key\",\"id\":\"bench\",\"tenant\":\"bench\",\"scopes\":[\"runs:create\",\"runs:read\",\"runs:cancel\",\"approvals:respond\",\"manifest:read\"]}]"
export WOP_API_KEY="$key"
modes="${MODES:-embedded distributed}"

wait_ready() {
  local deadline=$((SECONDS + 90))
  until curl -fsS "$1/readyz" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { echo "host at $1 not ready" >&2; return 1; }
    sleep 0.3
  done
}

for mode in $modes; do
  case "$mode" in
    embedded)
      PORT=18181 OPENWOP_DATA_DIR="$work/pgdata" node apps/embedded/dist/main.js >"$work/embedded.log" 2>&1 &
      pid=$!
      wait_ready http://127.0.0.1:18181
      WOP_URL=http://127.0.0.1:18181 NAME=openwop-embedded node tools/bench/hitl-bench.mts | tee "$work/embedded.result"
      kill "$pid"; wait "$pid" || true
      ;;
    distributed)
      db="openwop_bench_$$"
      DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" OPENWOP_NAMESPACE="bench$$" PORT=18182 \
        INSTANCES="${INSTANCES:-1}" bash tools/stack/stack.sh up >"$work/stack.log" 2>&1
      WOP_URL=http://127.0.0.1:18182 NAME=openwop-distributed node tools/bench/hitl-bench.mts | tee "$work/distributed.result"
      bash tools/stack/stack.sh down >>"$work/stack.log" 2>&1
      psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
      ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
done
grep -h '^MEDIAN' "$work"/*.result
