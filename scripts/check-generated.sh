#!/usr/bin/env bash
# check-generated.sh BUILDER CONFIG OUTDIR [FILE...]: regenerates into a temporary folder
# (only the FILEs named, where some are) and fails on any difference with the committed OUTDIR.
set -euo pipefail
builder=$1 config=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/generate.sh" "$builder" "$config" "$tmp/gen" "$@"
status=0
for f in "$tmp"/gen/*.go; do
  name=$(basename "$f")
  if ! diff -u "$out/$name" "$f" >"$tmp/diff" 2>&1; then
    echo "stale: $out/$name differs from what $config generates:"
    head -40 "$tmp/diff"
    status=1
  fi
done
if [ $status -ne 0 ]; then
  echo "run 'make generate' and commit the result"
else
  echo "generated code is up to date with $config"
fi
exit $status
