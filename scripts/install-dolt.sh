#!/usr/bin/env bash
# Build the Dolt SQL database binary from its Go module at a pinned commit and
# install it at <repo>/.tools/bin/dolt (git-ignored).
#
# Built binaries are cached per pin outside the checkout, in
#   ${CMEM_TOOLS_CACHE:-$HOME/.cache/collective-memory}/dolt/<sha>[-purego]/dolt
# so a fresh clone on the same machine only copies (hard-links) the binary.
# The Go module and build caches stay in their defaults (~/go/pkg/mod,
# ~/.cache/go-build), so a rebuild after a cache wipe is fast as well.
#
# Environment:
#   CMEM_TOOLS_CACHE    cache root (default: $HOME/.cache/collective-memory)
#   CMEM_DOLT_PURE_GO=1 build with -tags gms_pure_go (no ICU/libicu needed;
#                       REGEXP_* functions then use Go regexp semantics)
#
# Idempotent: if .tools/bin/dolt already is the pinned build, nothing happens
# except printing `dolt version`.
set -euo pipefail

# --- Pin ---------------------------------------------------------------------
# github.com/dolthub/dolt commit 011a27ff4303 (2026-04-24, "Merge pull request
# #10918"): the master commit directly after the v1.86.4 release (contained in
# v1.86.5); `dolt version` reports 1.86.4. It is the newest dolt commit whose
# module AND dependency versions are served by the Go module proxy and present
# in sum.golang.org as seen from our CI machines; the release-tag commits
# themselves (v1.86.4 = 73fcb4a868c2, v1.86.5, v2.x) are not in the checksum
# database there, so `go install` refuses them. Dolt's vX.Y.Z tags are not Go
# module tags for the go/ submodule, so the module is pinned by commit, spelled
# as its canonical pseudo-version (the proxy answers canonical versions only,
# not raw commit queries). go/go.mod at this commit: `go 1.26.2`, no replace.
DOLT_VERSION="1.86.4"
DOLT_COMMIT="011a27ff43038ec783ecf6529c20ad1d142deb81"
DOLT_MODULE="github.com/dolthub/dolt/go"
DOLT_PSEUDO_VERSION="v0.40.5-0.20260424001550-011a27ff4303"
DOLT_PKG="${DOLT_MODULE}/cmd/dolt"

log() { printf '[install-dolt] %s\n' "$*" >&2; }
die() { printf '[install-dolt] ERROR: %s\n' "$*" >&2; exit 1; }

case "$DOLT_PSEUDO_VERSION" in
  *-"${DOLT_COMMIT:0:12}") ;;
  *) die "internal: DOLT_PSEUDO_VERSION does not match DOLT_COMMIT" ;;
esac

# --- Paths -------------------------------------------------------------------
SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd -- "$SCRIPT_DIR/.." && pwd -P)"
TOOLS_BIN="$REPO_ROOT/.tools/bin"
TARGET="$TOOLS_BIN/dolt"

BUILD_TAGS=""
VARIANT="$DOLT_COMMIT"
if [[ "${CMEM_DOLT_PURE_GO:-0}" == "1" ]]; then
  BUILD_TAGS="gms_pure_go"
  VARIANT="${DOLT_COMMIT}-purego"
fi

CACHE_ROOT="${CMEM_TOOLS_CACHE:-${HOME:?HOME is not set}/.cache/collective-memory}"
CACHE_DIR="$CACHE_ROOT/dolt/$VARIANT"
CACHED="$CACHE_DIR/dolt"

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/install-dolt.XXXXXX")"
cleanup() {
  chmod -R u+w "$WORK_DIR" 2>/dev/null || true  # Go module files are read-only
  rm -rf -- "$WORK_DIR"
  rm -f -- "${CACHED}.tmp.$$" "$TARGET.tmp.$$"
}
trap cleanup EXIT

# --- Go toolchain ------------------------------------------------------------
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || die "go not found on PATH or at /usr/local/go/bin/go (Go >= 1.26.2 is required)"

# Print the module version and build tags recorded in a Go binary, e.g.
# "v0.40.5-0.2026...-73fcb4a868c2 tags=" (empty if not a dolt go-install build).
build_id() {
  go version -m "$1" 2>/dev/null | awk -v mod="$DOLT_MODULE" '
    $1 == "mod" && $2 == mod { v = $3 }
    $1 == "build" && $2 ~ /^-tags=/ { t = substr($2, 7) }
    END { if (v != "") printf "%s tags=%s", v, t }'
}
WANT_ID="$DOLT_PSEUDO_VERSION tags=$BUILD_TAGS"

# Run `dolt version` without touching $HOME/.dolt and without network access
# (version check and metrics disabled in a throwaway global config).
dolt_version() {
  local root
  root="$(mktemp -d "$WORK_DIR/doltroot.XXXXXX")"
  mkdir -p "$root/.dolt"
  printf '{"versioncheck.disabled":"true","metrics.disabled":"true"}\n' >"$root/.dolt/config_global.json"
  ( cd "$root" && DOLT_ROOT_PATH="$root" DOLT_DISABLE_EVENT_FLUSH=1 "$1" version )
}

is_good_binary() { # $1 = path
  [[ -x "$1" ]] && [[ "$(build_id "$1")" == "$WANT_ID" ]]
}

finish() {
  local out
  out="$(dolt_version "$TARGET")" || die "$TARGET does not run (dolt version failed)"
  case "$out" in
    *"$DOLT_VERSION"*) ;;
    *) die "unexpected dolt version output (want $DOLT_VERSION): $out" ;;
  esac
  printf '%s\n' "$out"
}

# --- Fast path: already installed --------------------------------------------
if is_good_binary "$TARGET"; then
  log "$TARGET is already dolt $DOLT_VERSION ($DOLT_PSEUDO_VERSION${BUILD_TAGS:+, tags $BUILD_TAGS}); nothing to do"
  finish
  exit 0
fi

mkdir -p "$CACHE_DIR" "$TOOLS_BIN"

# Serialize concurrent runs sharing the cache (e.g. parallel CI jobs).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_DIR/.lock"
  log "waiting for lock $CACHE_DIR/.lock"
  flock 9
fi

# --- Build into the user-level cache if needed --------------------------------
if is_good_binary "$CACHED"; then
  log "using cached build $CACHED"
else
  command -v gcc >/dev/null 2>&1 || die "cgo needs a C compiler: gcc not found (apt-get install build-essential)"
  command -v g++ >/dev/null 2>&1 || die "cgo needs a C++ compiler: g++ not found (apt-get install build-essential)"

  if [[ -z "$BUILD_TAGS" ]]; then
    # ICU headers/libs for github.com/dolthub/go-icu-regex (MySQL-compatible REGEXP).
    if ! dpkg-query -W -f='${Status}' libicu-dev 2>/dev/null | grep -q 'install ok installed'; then
      command -v apt-get >/dev/null 2>&1 || die "libicu-dev missing and apt-get unavailable; install ICU dev files or set CMEM_DOLT_PURE_GO=1"
      SUDO=""
      if [[ "$(id -u)" -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "libicu-dev missing; run as root or install it (apt-get install libicu-dev), or set CMEM_DOLT_PURE_GO=1"
        SUDO="sudo"
      fi
      log "installing libicu-dev with apt-get"
      $SUDO apt-get update -qq >&2 || die "apt-get update failed"
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libicu-dev >&2 \
        || die "apt-get install libicu-dev failed (or set CMEM_DOLT_PURE_GO=1 to build without ICU)"
    fi
  fi

  GOBIN_TMP="$WORK_DIR/gobin"
  mkdir -p "$GOBIN_TMP"
  log "building $DOLT_PKG@$DOLT_PSEUDO_VERSION (dolt $DOLT_VERSION${BUILD_TAGS:+, tags $BUILD_TAGS}) with $(go env GOVERSION); this takes several minutes on a cold cache"
  start=$SECONDS
  # GOFLAGS=-mod=mod would be rejected by `go install pkg@version`; clear GOFLAGS
  # entries that could interfere, keep module/build caches at their defaults.
  if ! env CGO_ENABLED=1 GOBIN="$GOBIN_TMP" GOFLAGS="" GOTOOLCHAIN=local \
      go install ${BUILD_TAGS:+-tags "$BUILD_TAGS"} "$DOLT_PKG@$DOLT_PSEUDO_VERSION" >&2; then
    die "go install $DOLT_PKG@$DOLT_PSEUDO_VERSION failed (see output above)"
  fi
  log "build finished in $((SECONDS - start))s"

  [[ -x "$GOBIN_TMP/dolt" ]] || die "go install produced no dolt binary in $GOBIN_TMP"
  got="$(build_id "$GOBIN_TMP/dolt")"
  [[ "$got" == "$WANT_ID" ]] || die "built binary reports '$got', expected '$WANT_ID'"
  dolt_version "$GOBIN_TMP/dolt" >/dev/null || die "freshly built dolt does not run"

  cp -f "$GOBIN_TMP/dolt" "$CACHED.tmp.$$"
  chmod 0755 "$CACHED.tmp.$$"
  mv -f "$CACHED.tmp.$$" "$CACHED"
  log "cached $CACHED"
fi

# --- Install into the checkout -------------------------------------------------
tmp_target="$TARGET.tmp.$$"
rm -f "$tmp_target"
if ln -f "$CACHED" "$tmp_target" 2>/dev/null; then
  how="hard-linked"
else
  cp -f "$CACHED" "$tmp_target"
  how="copied"
fi
mv -f "$tmp_target" "$TARGET"
log "$how $CACHED -> $TARGET"

is_good_binary "$TARGET" || die "installed $TARGET does not report $WANT_ID"
finish
