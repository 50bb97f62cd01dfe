# Sourced by the bench scripts: builds the apps, makes a bench API key, and runs a command against a
# fresh host of one mode (embedded: one process on PGlite; distributed: tools/stack with real Kafka
# and Postgres, its own database and topic namespace), stopping the host afterwards.
#   bench_init WORKDIR          build, wipe WORKDIR, export WOP_API_KEYS / WOP_API_KEY
#   bench_with_host MODE CMD…   start a host, run CMD with WOP_URL and NAME set, stop the host
# Env: BENCH_PORT (embedded host's port, default 18181; the distributed gateway uses BENCH_PORT+1),
# INSTANCES (distributed).

bench_init() {
  BENCH_WORK="$1"
  npx --no-install tsc -b tsconfig.build.json
  rm -rf "$BENCH_WORK" && mkdir -p "$BENCH_WORK"
  local key
  key="bench_$(node -e "process.stdout.write(require('crypto').randomBytes(16).toString('hex'))")"
  export WOP_API_KEYS="[{\"key\":\"$key\",\"id\":\"bench\",\"tenant\":\"bench\",\"scopes\":[\"runs:create\",\"runs:read\",\"runs:cancel\",\"approvals:respond\",\"manifest:read\",\"manifest:write\"]}]"
  export WOP_API_KEY="$key"
}

bench_wait_ready() {
  local deadline=$((SECONDS + 90))
  until curl -fsS "$1/readyz" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { echo "host at $1 not ready" >&2; return 1; }
    sleep 0.3
  done
}

bench_with_host() {
  local mode="$1" port="${BENCH_PORT:-18181}" rc=0
  shift
  case "$mode" in
    embedded)
      PORT=$port OPENWOP_DATA_DIR="$BENCH_WORK/pgdata" node apps/embedded/dist/main.js >"$BENCH_WORK/embedded.log" 2>&1 &
      local pid=$!
      bench_wait_ready "http://127.0.0.1:$port" || { kill "$pid"; return 1; }
      WOP_URL="http://127.0.0.1:$port" NAME=openwop-embedded "$@" || rc=$?
      kill "$pid"; wait "$pid" || true
      ;;
    distributed)
      local db="openwop_bench_$$"
      port=$((port + 1))
      DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" OPENWOP_NAMESPACE="bench$$" PORT=$port \
        INSTANCES="${INSTANCES:-1}" bash tools/stack/stack.sh up >"$BENCH_WORK/stack.log" 2>&1 || rc=$?
      if ((rc == 0)); then
        WOP_URL="http://127.0.0.1:$port" NAME=openwop-distributed "$@" || rc=$?
      fi
      bash tools/stack/stack.sh down >>"$BENCH_WORK/stack.log" 2>&1 || true
      psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
      ;;
    *) echo "unknown mode $mode" >&2; return 2 ;;
  esac
  return "$rc"
}
