#!/usr/bin/env bash
# check-mdatagen.sh MDATAGEN DIR...: runs mdatagen over each component's metadata.yaml (mdatagen.sh)
# and fails on any difference with the committed files, leaving the folder as
# it found it.
set -euo pipefail
mdatagen=$1
shift
status=0
for dir in "$@"; do
  dir=${dir%/}
  snap=$(mktemp -d)
  cp -a "$dir/." "$snap/"
  "$(dirname "$0")/mdatagen.sh" "$mdatagen" "$dir"
  if ! diff -ru "$snap" "$dir" >"$snap.diff"; then
    echo "stale: $dir differs from what mdatagen generates from $dir/metadata.yaml:"
    head -40 "$snap.diff"
    # Put the folder back as it was, new files included.
    find "$dir" -mindepth 1 -delete
    cp -a "$snap/." "$dir/"
    status=1
  fi
  rm -rf "$snap" "$snap.diff"
done
if [ $status -ne 0 ]; then
  echo "run 'make generate' and commit the result"
else
  echo "mdatagen output is up to date in: $*"
fi
exit $status
