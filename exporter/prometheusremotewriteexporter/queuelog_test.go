// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package prometheusremotewriteexporter

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/deliverywatchtest"
)

// A backend that refuses every write for good (Prometheus' 400 for samples out of order or
// out of bounds, a tenant it does not know) had the queue log an error with a stack trace for
// each batch; contrib's queue and this package's sending_queue now log the first and then one
// line every 5 minutes, with the points of all the batches it stands for (internal/deliverywatch's condenser,
// tests show that line).
func TestWritesRefusedForGoodAreLoggedOncePerCause(t *testing.T) {
	for name, queue := range map[string]map[string]any{
		"remote_write_queue": {"remote_write_queue": map[string]any{"queue_size": 100}},
		"sending_queue":      {"sending_queue": map[string]any{"enabled": true, "queue_size": 100, "num_consumers": 1}},
	} {
		t.Run(name, func(t *testing.T) {
			endpoint, writes := serve(t, func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "out of order sample", http.StatusBadRequest)
			})
			conf := map[string]any{
				"endpoint":                      endpoint,
				"max_batch_request_parallelism": 1,
				"retry_on_failure":              map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "100ms", "max_elapsed_time": 0},
			}
			for k, v := range queue {
				conf[k] = v
			}
			exp, logs := deliverywatchtest.StartMetricsUnstopped(t, NewFactory(), conf)
			for range 5 {
				require.NoError(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()))
			}
			require.Eventually(t, func() bool { return writes.Load() == 5 }, 10*time.Second, 10*time.Millisecond)
			deliverywatchtest.ShutDown(t, exp.Shutdown) // the queue's consumer finishes its batch first

			first := deliverywatchtest.CondensedLines(t, logs, deliverywatch.Dropping, "dropped_items")
			assert.Contains(t, first["error"], "remote write request failed", "contrib's error; its failed-write line gives the status")
		})
	}
}
