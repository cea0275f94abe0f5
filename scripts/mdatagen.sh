#!/usr/bin/env bash
# mdatagen.sh DIR...: runs mdatagen (go.mod's tool, v0.161.0) over each component's
# metadata.yaml, writing its internal/metadata, lifecycle tests and documentation.md.
set -euo pipefail
for dir in "$@"; do
  (cd "$dir" && go tool mdatagen metadata.yaml)
done
