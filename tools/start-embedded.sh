#!/usr/bin/env bash
# `npm start`: the embedded host (every app in one process, in-process bus, PGlite unless DATABASE_URL).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
npx --no-install tsc -b tsconfig.build.json
exec node apps/embedded/dist/main.js
