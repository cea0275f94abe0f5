#!/usr/bin/env bash
# bench.sh BENCHSTAT: the processor against the reference chain in one run, through benchstat.
# Writes the raw results to bench/processor.txt and the comparison to stdout.
set -euo pipefail
benchstat=$1
mkdir -p bench
go test -timeout 0 -run '^$' -bench 'BusyNode|Growth|Phases' -count "${BENCH_COUNT:-5}" -benchtime "${BENCH_TIME:-500x}" \
  ./processor/modelplanemapping/ | tee bench/processor.txt
echo
"$benchstat" -col /impl -filter '/impl:(modelplane_mapping OR reference)' bench/processor.txt
