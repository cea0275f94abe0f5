#!/usr/bin/env bash
# gpu-check: read this host's NVIDIA GPUs through the dcgm receiver (gpu-check prints every
# field per GPU and the modelplane_* series the built-ins make of them), then run the whole
# collector with its embedded default and show the modelplane_gpu_* series it serves.
# BIN names the folder holding gpu-check and otelcol-modelplane (default bin).
set -euo pipefail
bin=${BIN:-bin}
interval=${GPU_CHECK_INTERVAL:-2s}
port=${GPU_CHECK_PORT:-19464}

echo "== dcgm receiver, $interval apart"
"$bin/gpu-check" -collections "${GPU_CHECK_COLLECTIONS:-4}" -interval "$interval"

echo
echo "== otelcol-modelplane with its embedded default, served at 127.0.0.1:$port"
export MODELPLANE_PROMETHEUS_ENDPOINT=127.0.0.1:$port MODELPLANE_SCRAPE_INTERVAL=$interval
log=$(mktemp)
"$bin/otelcol-modelplane" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$log"' EXIT

fetch() {
	if command -v curl >/dev/null; then
		curl -fsS "http://127.0.0.1:$port/metrics"
	else
		python3 -c "import sys,urllib.request; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:$port/metrics').read().decode())"
	fi
}
page=""
for _ in $(seq 1 60); do
	page=$(fetch 2>/dev/null || true)
	grep -q '^modelplane_gpu_' <<<"$page" && break
	sleep 1
done
# Profiling ratios need two collections; wait for a few more.
sleep "$(( ${interval%s} * 3 ))"
page=$(fetch 2>/dev/null || true)
echo "collector log:"
grep -iE 'dcgm|nvml|error' "$log" | grep -v 'Failed to scrape' | head -40 || true
echo
echo "served modelplane_gpu_* / modelplane_energy_* series:"
grep -E '^modelplane_(gpu|energy)_' <<<"$page" || { echo "gpu-check: no modelplane_gpu_* series served" >&2; exit 1; }
if grep -v '^#' <<<"$page" | grep -v '^modelplane_' | grep -q .; then
	echo "gpu-check: the collector served series that are not modelplane_*:" >&2
	grep -v '^#' <<<"$page" | grep -v '^modelplane_' | head >&2
	exit 1
fi
