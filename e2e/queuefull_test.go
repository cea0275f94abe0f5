// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// A backend away for longer than the exporter's queue holds: the full queue refuses every
// batch, and the collector logged two lines for each (the exporter's error with a stack
// trace, the batch processor's warning), every scrape, for as long as the outage lasted.
// The built collector logs each once, and counts every refused point in its own metrics.
// The queue holds one batch here, so it is full within a second, where the chart's holds
// hundreds of MiB.
func TestAFullQueueIsLoggedOnce(t *testing.T) {
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	health, telemetry := freeport.Addr(t), freeport.Addr(t)
	host, port, ok := strings.Cut(telemetry, ":")
	require.True(t, ok)
	cfg := filepath.Join(t.TempDir(), "collector.yaml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, `
receivers:
  prometheus:
    config:
      scrape_configs:
        - job_name: vllm
          scrape_interval: 200ms
          static_configs: [{targets: ["%s"]}]
processors:
  modelplane_mapping: {}
  batch: {timeout: 50ms}
exporters:
  prometheus_remote_write:
    endpoint: http://%s/api/v1/write   # nothing listens there: the backend is down
    resource_constant_labels: {included: ["*"]}
    target_info: {enabled: false}
    max_batch_request_parallelism: 1
    retry_on_failure: {enabled: true, initial_interval: 1s, max_interval: 5s, max_elapsed_time: 0}
    timeout: 10m
    sending_queue: {enabled: true, num_consumers: 1, queue_size: 1}
extensions:
  health_check: {endpoint: %s}
service:
  extensions: [health_check]
  telemetry:
    metrics:
      readers:
        - pull: {exporter: {prometheus: {host: %s, port: %s}}}
  pipelines:
    metrics:
      receivers: [prometheus]
      processors: [modelplane_mapping, batch]
      exporters: [prometheus_remote_write]
`, vllm.Addr, freeport.Addr(t), health, host, port), 0o600))
	col := start(t, collectorBin, "--config="+cfg)

	refused := func() float64 {
		for _, l := range servedLines(t, telemetry) {
			if strings.HasPrefix(l, "otelcol_exporter_enqueue_failed_metric_points") {
				v, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
				require.NoError(t, err, l)
				return v
			}
		}
		return 0
	}
	// Some 40 scrapes, nearly all refused.
	eventually(t, "points refused by the full queue", func() bool { return refused() > 0 })
	first := refused()
	eventually(t, "more refused batches", func() bool { return refused() >= 10*first })

	out := col.out.String()
	// (The collector's output is in the test's log if it fails.)
	assert.Equal(t, 1, strings.Count(out, deliverywatch.Rejecting), "the exporter's line, once")
	assert.Equal(t, 1, strings.Count(out, "Sender failed"), "the batch processor's line, once")
	assert.True(t, strings.Contains(out, "otelcol_exporter_enqueue_failed_metric_points"), "the note names the metric that counts each point")
	assert.True(t, strings.Contains(out, `"error": "sending queue is full"`))

	// As the collector stops, the exporter logs one line more that counts the refusals it
	// held, so that the log of a stopped collector adds up too. (The batch processor's held
	// lines stand for the same batches, and are not logged again.)
	_, exited := interrupt(t, col, 60*time.Second)
	require.True(t, exited, "the collector stops by itself")
	var lines []string
	for _, l := range strings.Split(col.out.String(), "\n") {
		if strings.Contains(l, deliverywatch.Rejecting) {
			lines = append(lines, l)
		}
	}
	// (One line, or two where the exporter still held a refusal after its shutdown.)
	require.GreaterOrEqual(t, len(lines), 2, "the first refusal, and the ones held at the stop")
	require.LessOrEqual(t, len(lines), 3)
	assert.Contains(t, lines[1], deliverywatch.FlushNote)
	assert.Regexp(t, `"rejected_items": [1-9][0-9]*, "repeats": [1-9][0-9]*`, lines[1])
	assert.Equal(t, 1, strings.Count(col.out.String(), "Sender failed"))
	t.Logf("the exporter's lines:\n%s", strings.Join(lines, "\n")) // with -v: the figures docs/telemetry.md quotes
}
