#!/usr/bin/env bash
# Builds the previous release (tools/upgrade/previous-release.json, or the commit given as $1) in a
# git worktree under .infra/upgrade/<commit>: `npm ci` (its `prepare` runs `tsc -b`). Idempotent: a
# finished build is reused; an unfinished one (killed half-way) is removed and made again.
# Prints the worktree's absolute path as the last line of stdout; progress goes to stderr.
# Usage: bash tools/upgrade/prepare-previous.sh [commit]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PATH="$(bash "$root/tools/node/ensure-node.sh"):$PATH"
export PATH NX_DAEMON=false NX_NO_CLOUD=true
ref="${1:-$(node -p "require('$root/tools/upgrade/previous-release.json').commit")}"
commit="$(git -C "$root" rev-parse --verify --quiet "$ref^{commit}" || true)"
if [ -z "$commit" ]; then
  echo "prepare-previous: commit $ref is not in this clone (a shallow clone? fetch the full history: git fetch --unshallow)" >&2
  exit 1
fi
base="$root/.infra/upgrade"
dir="$base/$commit"
marker="$base/$commit.prepared"
# The apps the upgrade test starts from the old build.
outputs=(apps/embedded/dist/main.js apps/gateway/dist/main.js apps/engine/dist/main.js apps/interrupt/dist/main.js apps/projector/dist/main.js apps/token/dist/main.js)
built() {
  [ "$(cat "$marker" 2>/dev/null)" = "$commit" ] || return 1
  for f in "${outputs[@]}"; do [ -f "$dir/$f" ] || return 1; done
}
mkdir -p "$base"
# One preparer at a time (two test runs on one checkout wait for each other, then reuse).
exec 9>"$base/.lock"
flock 9
if built; then
  echo "prepare-previous: reusing $dir" >&2
  echo "$dir"
  exit 0
fi
t0=$SECONDS
rm -f "$marker"
if [ -e "$dir" ]; then
  echo "prepare-previous: removing an unfinished worktree at $dir" >&2
  git -C "$root" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
fi
git -C "$root" worktree prune
echo "prepare-previous: git worktree add $dir ($commit)" >&2
git -C "$root" worktree add --quiet --detach "$dir" "$commit" >&2
echo "prepare-previous: npm ci and build in $dir" >&2
( cd "$dir" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error >&2 )
for f in "${outputs[@]}"; do
  [ -f "$dir/$f" ] || { echo "prepare-previous: the build of $commit did not produce $f" >&2; exit 1; }
done
echo "$commit" > "$marker"
echo "prepare-previous: $commit ready in $((SECONDS - t0)) s" >&2
echo "$dir"
