#!/usr/bin/env bash
# `npm run fuzz [-- --requests N --mode embedded|distributed --url URL --database-url URL --seed X]`:
# builds, then runs tools/fuzz/fuzz.mts (see its header) with the project's Node 24. Needs Postgres
# on 127.0.0.1:5432 (TEST_POSTGRES_URL) for the host it starts when no --url is given, and for
# `--mode distributed` the Kafka broker on KAFKA_BROKERS (tools/kafka/kafka.sh start).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH
npx --no-install tsc -b tsconfig.build.json
exec node tools/fuzz/fuzz.mts "$@"
