#!/usr/bin/env bash
# Install Debian's chromium, the browser the review page's tests drive through
# Playwright (tests/browser/). Playwright's own browser download is not used:
# the tests launch /usr/bin/chromium through executable_path.
#
# Idempotent: if /usr/bin/chromium exists, nothing happens but printing its version.
# Otherwise: apt-get update && apt-get install -y chromium (as root, or through sudo).
#
# Environment:
#   CMEM_CHROMIUM   the browser to check for (default: /usr/bin/chromium)
set -euo pipefail

CHROMIUM="${CMEM_CHROMIUM:-/usr/bin/chromium}"

log() { printf '[install-chromium] %s\n' "$*" >&2; }
die() { printf '[install-chromium] ERROR: %s\n' "$*" >&2; exit 1; }

version() {
  "$CHROMIUM" --version
}

if [[ -x "$CHROMIUM" ]]; then
  log "$CHROMIUM is already installed; nothing to do"
  version
  exit 0
fi

command -v apt-get >/dev/null 2>&1 \
  || die "$CHROMIUM not found and apt-get unavailable: install chromium another way, or set CMEM_CHROMIUM"
SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 \
    || die "$CHROMIUM not found; run as root or install it yourself (apt-get install chromium)"
  SUDO="sudo"
fi

# Serialise concurrent runs (apt holds its own lock, but a second run would fail on it).
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/install-chromium.lock"
  flock 9
  if [[ -x "$CHROMIUM" ]]; then
    log "installed meanwhile by another run"
    version
    exit 0
  fi
fi

log "installing chromium with apt-get"
$SUDO apt-get update -qq >&2 || die "apt-get update failed (no package index reachable?)"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >&2 \
  || die "apt-get install chromium failed (see output above)"
[[ -x "$CHROMIUM" ]] || die "apt-get installed chromium, but $CHROMIUM is not there (set CMEM_CHROMIUM to its path)"
version
