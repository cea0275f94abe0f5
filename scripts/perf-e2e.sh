#!/usr/bin/env bash
# perf-e2e.sh [FLEET] [DRIVER FLAG...]: where both collectors spend their CPU at one fleet size
# (default 8x8), kernel included, which Go's own profiler under-samples at small fleets. Builds
# both collectors with their symbols (perf cannot name the functions of a stripped binary; the
# code is the same as `make build`'s), runs one repetition of bench/e2e with a 75 s window,
# and records each collector with `perf record` for 60 s after its first export. Writes
# .cache/perf/<ours|reference>-FLEET.{perf,txt}: the recording and its cumulative report by
# function. Flags after FLEET go to the driver (such as -minimal-pages). With SECOND=floor,
# bench/scrapefloor (the least a Go program does for the same scrapes) takes the reference's
# place, and the files are named <ours|floor>-FLEET. Needs Linux perf and permission to use it
# (root here).
set -euo pipefail
fleet=${1:-8x8}
shift || true
second=${SECOND:-reference}
case $second in
reference) second_bin=otelcol-reference; second_mod=bench/reference; second_pkg=./cmd/otelcol-reference ;;
floor) second_bin=scrapefloor; second_mod=.; second_pkg=./bench/scrapefloor ;;
*) echo "perf-e2e.sh: SECOND=$second is neither reference nor floor" >&2; exit 1 ;;
esac
tags=remove_all_sd,enable_kubernetes_sd,grpcnotrace
out=.cache/perf
mkdir -p "$out"
command -v perf >/dev/null || { echo "perf-e2e.sh: needs Linux perf (linux-perf)" >&2; exit 1; }
go build -trimpath -tags "$tags" -o "$out/otelcol-modelplane" ./cmd/otelcol-modelplane
(cd "$second_mod" && go build -trimpath -tags "$tags" -o "$OLDPWD/$out/$second_bin" "$second_pkg")

go run ./bench/e2e -ours "$out/otelcol-modelplane" -reference "$out/$second_bin" \
  -fleets "$fleet" -reps 1 -run 75s -idle 0 "$@" >"$out/run-$second-$fleet.txt" &
driver=$!
# `go run` does not pass a signal on to the driver it built, so stop both by their arguments.
trap 'pkill -f -- "-ours $out/otelcol-modelplane" 2>/dev/null || true' EXIT

# The driver runs ours first, then the second program in the reference's place.
for which in ours "$second"; do
  bin=otelcol-modelplane
  [ "$which" = "$second" ] && bin=$second_bin
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
cat "$out/run-$second-$fleet.txt"
echo
echo "reports: $out/ours-$fleet.txt $out/$second-$fleet.txt (cumulative share of each program's samples by function)"
