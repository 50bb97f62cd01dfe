#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is installed for the browser tests (the admin page e2e
# spec drives it with playwright-core) and prints its path. Debian's `chromium` package, installed
# with apt-get when missing (needs root, as in CI); idempotent and quiet when already there.
# CHROMIUM_PATH overrides the binary (e.g. a Chrome you already have).
set -euo pipefail
if [[ -n "${CHROMIUM_PATH:-}" ]]; then
  [[ -x "$CHROMIUM_PATH" ]] || { echo "CHROMIUM_PATH=$CHROMIUM_PATH is not executable" >&2; exit 1; }
  echo "$CHROMIUM_PATH"
  exit 0
fi
bin=/usr/bin/chromium
if [[ ! -x "$bin" ]]; then
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "chromium is missing: install it (apt-get install chromium, as root) or set CHROMIUM_PATH" >&2
    exit 1
  fi
  echo "installing chromium (apt-get)…" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq chromium >/dev/null
  [[ -x "$bin" ]] || { echo "apt-get did not install $bin" >&2; exit 1; }
fi
echo "$bin"
