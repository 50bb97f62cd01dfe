#!/usr/bin/env bash
# `npm test`: format check, lint, typecheck, build, then the unit, integration (real Kafka + Postgres) and
# end-to-end (apps as separate processes) tiers. Stops at the first failing step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH NX_DAEMON=false NX_NO_CLOUD=true
step() {
  local name=$1; shift
  local t0=$SECONDS
  echo "=== $name"
  "$@"
  echo "=== $name ok ($((SECONDS - t0)) s)"
}
t_all=$SECONDS
# The module-boundary rule reads the Nx project graph: compute it first.
step project-graph npx --no-install nx show projects
step format npx --no-install prettier --check . --log-level warn
step lint npx --no-install eslint . --max-warnings=0
step typecheck npx --no-install tsc -p tsconfig.json --noEmit
step build npx --no-install tsc -b tsconfig.build.json
step unit npx --no-install jest -c jest.unit.config.js
step integration npx --no-install jest -c jest.int.config.js
# The admin page's e2e spec drives a headless Chromium (installed with apt-get when missing).
step browser bash tools/browser/ensure-chromium.sh
step e2e npx --no-install jest -c jest.e2e.config.js
echo "=== all tests passed in $((SECONDS - t_all)) s"
