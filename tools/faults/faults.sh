#!/usr/bin/env bash
# `npm run faults [-- --restart-postgres]`: builds, then runs tools/faults/faults.mts (see its
# header) with the project's Node 24. Env: DURATION (10m), FAULT_INTERVAL (20s), LOAD_CONCURRENCY,
# INSTANCES (2), FAULT_KAFKA_PORT (19092: its own broker, data in .infra/faults/kafka), FAULT_SEED.
# Postgres: a fresh test_faults_* database on 127.0.0.1:5432 (TEST_POSTGRES_URL).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH
npx --no-install tsc -b tsconfig.build.json
exec node tools/faults/faults.mts "$@"
