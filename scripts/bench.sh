#!/usr/bin/env bash
# bench.sh BENCHSTAT: the processor against the reference chain in one run, through benchstat.
# Writes the raw results to .cache/bench/processor.txt and the comparison to stdout.
set -euo pipefail
benchstat=$1
mkdir -p .cache/bench
go test -timeout 0 -run '^$' -bench 'BusyNode|Growth|Phases' -count "${BENCH_COUNT:-6}" -benchtime "${BENCH_TIME:-500x}" \
  ./processor/modelplanemapping/ | tee .cache/bench/processor.txt
echo
"$benchstat" -col /impl -filter '/impl:(modelplane_mapping OR reference)' .cache/bench/processor.txt
