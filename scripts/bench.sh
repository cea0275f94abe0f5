#!/usr/bin/env bash
# bench.sh BENCHSTAT: the processor against the reference chain in one command, through
# benchstat. Ours runs in this module; the reference's side runs in bench/reference (its own
# module, at the release Modelplane renders for) on the batch and configs ours writes.
# Raw results go to .cache/bench/processor.txt; the comparison to stdout.
set -euo pipefail
benchstat=$1
root=$(pwd)
inputs=$root/.cache/bench/inputs
mkdir -p "$inputs"
REFERENCE_BENCH_INPUTS=$inputs go test -count=1 -run '^TestWriteReferenceBenchInputs$' ./processor/modelplanemapping/ >/dev/null
args=(-timeout 0 -run '^$' -count "${BENCH_COUNT:-6}" -benchtime "${BENCH_TIME:-500x}")
{
  go test "${args[@]}" -bench 'BusyNode|Growth|Phases' ./processor/modelplanemapping/
  (cd bench/reference && REFERENCE_BENCH_INPUTS=$inputs go test "${args[@]}" -bench 'BusyNode|Growth' ./pipeline/)
} | tee .cache/bench/processor.txt
echo
"$benchstat" -ignore pkg -col /impl -filter '/impl:(modelplane_mapping OR reference)' .cache/bench/processor.txt
