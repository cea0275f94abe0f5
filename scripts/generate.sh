#!/usr/bin/env bash
# generate.sh BUILDER CONFIG OUTDIR [FILE...]: writes the builder's sources for CONFIG into
# OUTDIR, gofmt'ed (only the FILEs named, where some are), leaving our own files there alone.
set -euo pipefail
builder=$1 config=$2 out=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(cd "$(dirname "$config")" && pwd)
sed -e "s#^\(  output_path:\).*#\1 $tmp/out#" -e "s#path: \./\$#path: $root#" "$config" > "$tmp/builder-config.yaml"
"$builder" --config "$tmp/builder-config.yaml" --skip-compilation --skip-get-modules >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
gofmt -w "$tmp/out"
mkdir -p "$out"
if [ $# -gt 0 ]; then
  for f in "$@"; do cp "$tmp/out/$f" "$out/"; done
else
  cp "$tmp"/out/*.go "$out"/
fi
