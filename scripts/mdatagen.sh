#!/usr/bin/env bash
# mdatagen.sh MDATAGEN DIR...: runs mdatagen (tools/go.mod) over each component's
# metadata.yaml, writing its internal/metadata, lifecycle tests and documentation.md.
set -euo pipefail
mdatagen=$1
shift
for dir in "$@"; do
  (cd "$dir" && "$mdatagen" metadata.yaml)
done
