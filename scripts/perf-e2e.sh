#!/usr/bin/env bash
# perf-e2e.sh [FLEET]: where both collectors spend their CPU at one fleet size (default 8x8),
# kernel included, which Go's own profiler under-samples at small fleets. Builds both
# collectors with their symbols (perf cannot name the functions of a stripped binary; the
# code is the same as `make build`'s), runs one repetition of bench/e2e with a 75 s window,
# and records each collector with `perf record` for 60 s after its first export. Writes
# .cache/perf/<ours|reference>-FLEET.{perf,txt}: the recording and its cumulative report by
# function. Needs Linux perf and permission to use it (root here).
set -euo pipefail
fleet=${1:-8x8}
tags=remove_all_sd,enable_kubernetes_sd,grpcnotrace
out=.cache/perf
mkdir -p "$out"
command -v perf >/dev/null || { echo "perf-e2e.sh: needs Linux perf (linux-perf)" >&2; exit 1; }
# shellcheck disable=SC2046 # one flag per line of the file
go build -trimpath $(sed '/^#/d' gcflags.txt) -tags "$tags" -o "$out/otelcol-modelplane" ./cmd/otelcol-modelplane
go build -trimpath -tags "$tags" -o "$out/otelcol-reference" ./bench/reference/cmd/otelcol-reference

go run ./bench/e2e -ours "$out/otelcol-modelplane" -reference "$out/otelcol-reference" \
  -fleets "$fleet" -reps 1 -run 75s -idle 0 >"$out/run-$fleet.txt" &
driver=$!
# `go run` does not pass a signal on to the driver it built, so stop both by their arguments.
trap 'pkill -f -- "-ours $out/otelcol-modelplane" 2>/dev/null || true' EXIT

# The driver runs ours first, then the reference.
for which in ours reference; do
  bin=otelcol-modelplane
  [ "$which" = reference ] && bin=otelcol-reference
  pid=""
  for _ in $(seq 1 1200); do
    pid=$(pgrep -f "^$out/$bin --config" || true)
    [ -n "$pid" ] && break
    sleep 0.25
  done
  [ -n "$pid" ] || { echo "perf-e2e.sh: $which did not start" >&2; exit 1; }
  sleep 9 # past the first export, about 6 s after start
  perf record -q -e cpu-clock -F 1999 -g -p "$pid" -o "$out/$which-$fleet.perf" -- sleep 60
  perf report -i "$out/$which-$fleet.perf" --stdio --children --sort sym -g none 2>/dev/null |
    grep '%' >"$out/$which-$fleet.txt"
done
wait $driver
trap - EXIT
cat "$out/run-$fleet.txt"
echo
echo "reports: $out/ours-$fleet.txt $out/reference-$fleet.txt (cumulative share of each collector's samples by function)"
