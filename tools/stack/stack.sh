#!/usr/bin/env bash
# The distributed stack on one machine, without Docker: real Kafka (tools/kafka/kafka.sh when none
# answers at KAFKA_BROKERS), Postgres at DATABASE_URL, every app its own process.
#   stack.sh up | down | status
# Env: INSTANCES (default 1) or INSTANCES_<APP> (e.g. INSTANCES_GATEWAY=2); PORT (first gateway, 8080;
# the next ones PORT+1, …); KAFKA_BROKERS; DATABASE_URL; WOP_API_KEYS, WOP_TOKEN_KEYS and
# OPENWOP_WEBHOOK_SECRET_KEYS (generated when unset, into .infra/stack/api-key, token-keys.json and
# webhook-secret-keys, mode 0600; the key is never printed); .infra/stack/gateways lists the gateways'
# origins while the stack is up, so wop sends them this key; METRICS_BASE_PORT
# (9464): each service process serves GET /metrics, /healthz and /readyz on the next port from it
# (the gateways on their API port). Every series has one owner (docs/adr/0010-observability.md): the
# pending-interrupt gauges are the projector's, lag and dead letters each consumer's, so scrape them
# all; .infra/stack/prometheus-targets.json lists them for Prometheus' file_sd_configs.
# Logs and pids: .infra/stack/ (STACK_DIR to keep a second stack's apart, e.g. a bench's).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH
dir="${STACK_DIR:-$root/.infra/stack}"
mkdir -p "$dir"
export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:9092}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/openwop}"
PORT="${PORT:-8080}"
APPS=(engine projector interrupt token notifier gateway)

instances() { local v="INSTANCES_${1^^}"; echo "${!v:-${INSTANCES:-1}}"; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

up() {
  local t0=$SECONDS
  npx --no-install tsc -b tsconfig.build.json
  if [ "$KAFKA_BROKERS" = "127.0.0.1:9092" ]; then
    if ! bash tools/kafka/kafka.sh status >/dev/null 2>&1; then
      # On a loaded machine a running broker can miss the status deadline: it is someone else's, and
      # `down` must not stop it. Only a broker this script launched is marked as its own.
      local broker_pidf="${KAFKA_HOME_DIR:-$root/.infra/kafka}/broker.pid" had_broker=0
      [ -f "$broker_pidf" ] && kill -0 "$(cat "$broker_pidf")" 2>/dev/null && had_broker=1
      bash tools/kafka/kafka.sh start
      ((had_broker)) || touch "$dir/kafka-started-by-stack"
    fi
  fi
  if [ -z "${WOP_API_KEYS:-}" ]; then
    [ -f "$dir/api-key" ] || node -e "process.stdout.write('wop_' + require('crypto').randomBytes(24).toString('base64url'))" > "$dir/api-key"
    chmod 600 "$dir/api-key"
    WOP_API_KEYS="$(node -e "const k=require('fs').readFileSync(process.argv[1],'utf8');console.log(JSON.stringify([{key:k,id:'stack-admin',tenant:'default',scopes:['manifest:read','manifest:write','runs:create','runs:read','runs:cancel','artifacts:read','webhooks:manage','approvals:respond']}]))" "$dir/api-key")"
    echo "API key (all scopes, tenant default): in $dir/api-key (wop reads it for this stack's gateways)"
  fi
  export WOP_API_KEYS
  if [ -z "${WOP_TOKEN_KEYS:-}" ]; then
    # The token service's HMAC key ring; every token instance must share it. Kept across restarts
    # so outstanding tokens stay valid. Rotate by adding a key and switching "active".
    [ -f "$dir/token-keys.json" ] || (umask 077 && node -e "const c=require('crypto');const kid='k-'+c.randomBytes(4).toString('hex');process.stdout.write(JSON.stringify({active:kid,keys:{[kid]:c.randomBytes(32).toString('base64')}}))" > "$dir/token-keys.json")
    chmod 600 "$dir/token-keys.json"
    WOP_TOKEN_KEYS="$(cat "$dir/token-keys.json")"
    echo "token signing keys: $dir/token-keys.json"
  fi
  export WOP_TOKEN_KEYS
  if [ -z "${OPENWOP_WEBHOOK_SECRET_KEYS:-}" ]; then
    # The ring that seals webhook secrets at rest (ADR 0028): `kid:base64-32-bytes`, shared by the
    # gateways and the notifiers, kept across restarts so stored secrets stay readable.
    [ -f "$dir/webhook-secret-keys" ] || (umask 077 && node -e "const c=require('crypto');process.stdout.write('k-'+c.randomBytes(4).toString('hex')+':'+c.randomBytes(32).toString('base64'))" > "$dir/webhook-secret-keys")
    chmod 600 "$dir/webhook-secret-keys"
    OPENWOP_WEBHOOK_SECRET_KEYS="$(cat "$dir/webhook-secret-keys")"
    echo "webhook secret keys: $dir/webhook-secret-keys"
  fi
  export OPENWOP_WEBHOOK_SECRET_KEYS
  local metrics_port="${METRICS_BASE_PORT:-9464}" targets=()
  for app in "${APPS[@]}"; do
    local n; n="$(instances "$app")"
    for ((i = 1; i <= n; i++)); do
      local pidf="$dir/$app-$i.pid" port_env=() target
      if [ "$app" = gateway ]; then
        port_env=(PORT=$((PORT + i - 1)))
        target="127.0.0.1:$((PORT + i - 1))"
      else
        port_env=(METRICS_PORT="$metrics_port")
        target="127.0.0.1:$metrics_port"
        metrics_port=$((metrics_port + 1))
      fi
      targets+=("{\"targets\":[\"$target\"],\"labels\":{\"app\":\"$app\",\"instance_name\":\"$app-$i\"}}")
      if alive "$pidf"; then echo "$app-$i already running (pid $(cat "$pidf"), metrics http://$target/metrics)"; continue; fi
      env "${port_env[@]}" INSTANCE_ID="$app-$i-$$" nohup node "apps/$app/dist/main.js" >"$dir/$app-$i.log" 2>&1 &
      echo $! >"$pidf"
      echo "started $app-$i (pid $!, log $dir/$app-$i.log, metrics http://$target/metrics)"
      # The first instance of each app migrates the database before the others join.
      [ "$app" = engine ] && [ "$i" = 1 ] && wait_ready_log "$dir/engine-1.log" "engine"
    done
  done
  local deadline=$((SECONDS + 90))
  until curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then echo "gateway not ready on :$PORT after 90 s; see $dir/gateway-1.log" >&2; exit 1; fi
    sleep 0.3
  done
  # Every process must still be alive: a service that failed to start fails the whole command.
  local dead=0
  for pidf in "$dir"/*.pid; do
    if ! alive "$pidf"; then
      local name; name="$(basename "$pidf" .pid)"
      echo "$name exited during start; last lines of $dir/$name.log:" >&2
      tail -5 "$dir/$name.log" >&2
      dead=1
    fi
  done
  ((dead == 0)) || exit 1
  (IFS=,; echo "[${targets[*]}]") >"$dir/prometheus-targets.json"
  # The gateways' origins: wop sends the stack's key (api-key) to these and the embedded key elsewhere.
  local n_gw; n_gw="$(instances gateway)"
  : >"$dir/gateways"
  for ((i = 0; i < n_gw; i++)); do echo "http://127.0.0.1:$((PORT + i))" >>"$dir/gateways"; done
  echo "metrics: every process above serves its own /metrics (pending interrupts: projector; lag: each consumer); targets in $dir/prometheus-targets.json"
  echo "stack up in $((SECONDS - t0)) s: http://127.0.0.1:$PORT"
}

wait_ready_log() {
  local deadline=$((SECONDS + 60))
  until grep -q " ready" "$1" 2>/dev/null; do
    if ((SECONDS > deadline)); then echo "$2 not ready after 60 s; see $1" >&2; exit 1; fi
    sleep 0.2
  done
}

down() {
  for pidf in "$dir"/*.pid; do
    [ -e "$pidf" ] || continue
    if alive "$pidf"; then kill "$(cat "$pidf")" 2>/dev/null || true; fi
  done
  local deadline=$((SECONDS + 20))
  for pidf in "$dir"/*.pid; do
    [ -e "$pidf" ] || continue
    while alive "$pidf"; do
      if ((SECONDS > deadline)); then kill -9 "$(cat "$pidf")" 2>/dev/null || true; break; fi
      sleep 0.2
    done
    rm -f "$pidf"
  done
  rm -f "$dir/gateways"
  if [ -f "$dir/kafka-started-by-stack" ]; then bash tools/kafka/kafka.sh stop; rm -f "$dir/kafka-started-by-stack"; fi
  echo "stack down"
}

status() {
  local any=1
  for pidf in "$dir"/*.pid; do
    [ -e "$pidf" ] || continue
    if alive "$pidf"; then echo "$(basename "$pidf" .pid): running (pid $(cat "$pidf"))"; any=0; else echo "$(basename "$pidf" .pid): dead"; fi
  done
  return $any
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
