# Sourced by the bench scripts: builds the apps, makes a bench API key, and runs a command against a
# fresh host of one mode, stopping the host afterwards:
#   embedded     one process (apps/embedded) on PGlite in a fresh data directory;
#   oneproc      the same process on the machine's Postgres server (DATABASE_URL, a fresh database);
#   distributed  tools/stack with real Kafka and Postgres, its own database and topic namespace.
#   bench_init WORKDIR          build, wipe WORKDIR, export WOP_API_KEYS / WOP_API_KEY
#   bench_with_host MODE CMD…   start a host, run CMD with WOP_URL and NAME set, stop the host
# CMD also gets what tools/bench/cpu-wrap.mts counts as the row's CPU: CPU_PIDS (label:pid of each
# host process), CPU_POSTGRES=1 when the host uses the Postgres server, CPU_KAFKA=1 for the broker.
# Env: BENCH_PORT (embedded host's port, default 18181; the distributed gateway uses BENCH_PORT+1,
# the next gateways the ports after it), BENCH_METRICS_PORT (the distributed services' first metrics
# port, default 18300), INSTANCES (distributed), BENCH_PG (the Postgres server of oneproc and
# distributed, default postgres://postgres@127.0.0.1:5432). The distributed stack keeps its pids and logs in
# WORKDIR/stack (STACK_DIR).
# BENCH_COUNT=1 (npm run bench sets it unless COUNT=0): the host's processes load
# tools/bench/count-requests.cjs, and CMD gets COUNT_DIR, where they write what they counted on
# SIGUSR2 (tools/bench/seq-counts.mts reads it: statements, commits and Kafka requests per
# sequential cycle).

BENCH_PG="${BENCH_PG:-postgres://postgres@127.0.0.1:5432}"

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
  # The preload is for the host's processes only, never for the load generator.
  local host_opts="${NODE_OPTIONS:-}" count_dir=""
  if [[ "${BENCH_COUNT:-0}" == 1 ]]; then
    host_opts="${host_opts:+$host_opts }--require $PWD/tools/bench/count-requests.cjs"
    count_dir="$BENCH_WORK/counts-$mode"
  fi
  case "$mode" in
    embedded)
      env -u DATABASE_URL NODE_OPTIONS="$host_opts" COUNT_DIR="$count_dir" PORT=$port OPENWOP_DATA_DIR="$BENCH_WORK/pgdata" \
        node apps/embedded/dist/main.js >"$BENCH_WORK/embedded.log" 2>&1 &
      local pid=$!
      bench_wait_ready "http://127.0.0.1:$port" || { kill "$pid"; return 1; }
      WOP_URL="http://127.0.0.1:$port" NAME=openwop-embedded CPU_PIDS="host:$pid" CPU_POSTGRES=0 CPU_KAFKA=0 COUNT_DIR="$count_dir" \
        "$@" || rc=$?
      kill "$pid"; wait "$pid" || true
      ;;
    oneproc)
      local db="openwop_bench1_$$"
      psql "$BENCH_PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
      NODE_OPTIONS="$host_opts" COUNT_DIR="$count_dir" PORT=$port DATABASE_URL="$BENCH_PG/$db" OPENWOP_DATA_DIR="$BENCH_WORK/oneproc-data" \
        node apps/embedded/dist/main.js \
        >"$BENCH_WORK/oneproc.log" 2>&1 &
      local pid=$!
      if bench_wait_ready "http://127.0.0.1:$port"; then
        WOP_URL="http://127.0.0.1:$port" NAME=openwop-oneproc CPU_PIDS="host:$pid" CPU_POSTGRES=1 CPU_KAFKA=0 COUNT_DIR="$count_dir" \
          "$@" || rc=$?
      else
        rc=1
      fi
      kill "$pid"; wait "$pid" || true
      psql "$BENCH_PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
      ;;
    distributed)
      # A fresh database and topic namespace per host, also when one script starts several.
      local run_id="$$$RANDOM"
      local db="openwop_bench_$run_id"
      port=$((port + 1))
      # Its own pid and log directory and metrics ports, apart from a stack someone else runs.
      export STACK_DIR="$BENCH_WORK/stack"
      NODE_OPTIONS="$host_opts" COUNT_DIR="$count_dir" DATABASE_URL="$BENCH_PG/$db" OPENWOP_NAMESPACE="bench$run_id" PORT=$port \
        METRICS_BASE_PORT="${BENCH_METRICS_PORT:-18300}" INSTANCES="${INSTANCES:-1}" \
        bash tools/stack/stack.sh up >"$BENCH_WORK/stack.log" 2>&1 || rc=$?
      if ((rc == 0)); then
        # (A stack.sh without STACK_DIR keeps them in .infra/stack.)
        local pids="" f sd="$STACK_DIR"
        compgen -G "$sd/*.pid" >/dev/null || sd=.infra/stack
        for f in "$sd"/*.pid; do
          pids+=" $(basename "$f" .pid | sed 's/-[0-9]*$//'):$(cat "$f")"
        done
        WOP_URL="http://127.0.0.1:$port" NAME=openwop-distributed CPU_PIDS="$pids" CPU_POSTGRES=1 CPU_KAFKA=1 COUNT_DIR="$count_dir" \
          "$@" || rc=$?
      fi
      bash tools/stack/stack.sh down >>"$BENCH_WORK/stack.log" 2>&1 || true
      psql "$BENCH_PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
      ;;
    *) echo "unknown mode $mode" >&2; return 2 ;;
  esac
  return "$rc"
}
