#!/usr/bin/env bash
# soak.sh MINUTES: the embedded default for MINUTES minutes against the demo vLLM and SGLang
# and a dcgm-exporter page whose GPUs pass from pod to pod every CHURN seconds (default 10:
# one GPU's pod and namespace, the other's pod every third period), scraped every SCRAPE
# (default 2s); prints every 30 s the collector's RSS, the memory its Go runtime holds from
# the system, its live heap, and how many modelplane_* and GPU series its endpoint serves. A
# collector that kept state per pod, or served ended series, would grow in one column or
# another.
# Needs bin/otelcol-modelplane and bin/demo-engines (make build bin/demo-engines), python3,
# and ports 8000, 30000, 9400, 19400, 19464 and 18888 free. docs/reliability.md has a run.
set -euo pipefail
minutes=${1:?minutes}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

cat > "$work/churn.py" <<'PY'
import http.server, sys, time
page = open(sys.argv[1]).read()
start = time.time()
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        n = int((time.time() - start) // float(sys.argv[3]))
        body = (page.replace('pod="llama-finetune-7d9f8b6c5d-x2kqp"', 'pod="job-%d"' % n)
                    .replace('namespace="ml-training"', 'namespace="team-%d"' % (n % 50))
                    .replace('pod="vllm-l4-5c7d9f8b6d-q4zxm"', 'pod="vllm-%d"' % (n // 3))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
PY

bin/demo-engines -expositions testdata/exposition > "$work/demo.log" 2>&1 &
python3 "$work/churn.py" testdata/exposition/dcgm-exporter.prom 19400 "${CHURN:-10}" &
sleep 2
env -i PATH="$PATH" HOME="$work" MODELPLANE_SCRAPE_INTERVAL="${SCRAPE:-2s}" MODELPLANE_DCGM_EXPORTER_TARGET=127.0.0.1:19400 \
  MODELPLANE_PROMETHEUS_ENDPOINT=127.0.0.1:19464 MODELPLANE_TELEMETRY_ENDPOINT=127.0.0.1:18888 \
  bin/otelcol-modelplane > "$work/collector.log" 2>&1 &
collector=$!
end=$((SECONDS + minutes * 60))
echo "seconds rss_kib sys_bytes heap_bytes modelplane_series gpu_series"
sleep 30
while [ $SECONDS -lt $end ]; do
  rss=$(awk '/VmRSS/{print $2}' /proc/$collector/status)
  own=$(curl -s 127.0.0.1:18888/metrics)
  sys=$(awk '/^otelcol_process_runtime_total_sys_memory_bytes/{printf "%d", $2}' <<<"$own")
  heap=$(awk '/^otelcol_process_runtime_heap_alloc_bytes/{printf "%d", $2}' <<<"$own")
  page=$(curl -s 127.0.0.1:19464/metrics)
  echo "$SECONDS $rss $sys $heap $(grep -c '^modelplane_' <<<"$page") $(grep -c '^modelplane_gpu' <<<"$page")"
  sleep 30
done
echo "warnings and errors in the collector's log: $(grep -c -E '	(warn|error)	' "$work/collector.log" || true)"
