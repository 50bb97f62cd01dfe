#!/usr/bin/env bash
# Runs a command with the project's Node 24 runtime first on PATH (installed on demand).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PATH="$(bash "$root/tools/node/ensure-node.sh"):$PATH"
export PATH
exec "$@"
