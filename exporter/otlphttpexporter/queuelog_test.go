// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package otlphttpexporter

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/exporter"
	core "go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/deliverywatchtest"
)

// answering serves OTLP/HTTP on loopback, answering every request with status, and counts
// the requests.
func answering(t *testing.T, status int) (string, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &requests
}

// fullQueue fills a one-batch sending queue in front of an endpoint that answers 503 and
// offers it five batches more, which it refuses; then it stops the exporter.
func fullQueue(t *testing.T, f exporter.Factory) (accepted int, logs *observer.ObservedLogs) {
	endpoint, requests := answering(t, http.StatusServiceUnavailable)
	exp, logs := deliverywatchtest.StartMetricsUnstopped(t, f, map[string]any{
		"endpoint":         endpoint,
		"compression":      "none",
		"sending_queue":    map[string]any{"enabled": true, "queue_size": 1, "num_consumers": 1},
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": 0},
	})
	require.NoError(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()))
	require.Eventually(t, func() bool { return requests.Load() > 0 }, 10*time.Second, 10*time.Millisecond, "the first batch is in flight")
	accepted = 1
	for rejected := 0; rejected < 5; {
		require.Less(t, accepted, 10, "the queue of one batch never fills")
		if err := exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()); err != nil {
			assert.ErrorContains(t, err, "sending queue is full")
			rejected++
		} else {
			accepted++
		}
	}
	deliverywatchtest.ShutDown(t, exp.Shutdown)
	return accepted, logs
}

// A queue that stays full (its endpoint has not accepted data for longer than it holds)
// refuses every batch, and the collector logged each as an error with a stack trace: a line
// every few seconds for as long as the outage lasts. Here the first is logged, with a note,
// and the same refusal again is counted in a line every 5 minutes (internal/deliverywatch's condenser tests
// show that line). What the queue held at the stop is still logged batch by batch.
func TestAFullQueueIsLoggedOncePerCause(t *testing.T) {
	accepted, logs := fullQueue(t, NewFactory())
	first := deliverywatchtest.CondensedLines(t, logs, deliverywatch.Rejecting, "rejected_items")
	assert.Contains(t, first["error"], "sending queue is full")
	assert.Contains(t, first["note"], "otelcol_exporter_enqueue_failed_metric_points")
	assert.EqualValues(t, accepted, deliverywatchtest.DroppedPoints(logs),
		"each batch the stop dropped has its line, though they share a cause")
}

func TestTheCollectorsExporterLogsEveryRefusal(t *testing.T) {
	_, logs := fullQueue(t, core.NewFactory())
	assert.Equal(t, 5, logs.FilterMessage(deliverywatch.Rejecting).Len())
}

// droppedForGood sends five batches to an endpoint that answers 400, which OTLP/HTTP does
// not retry: the queue drops each one.
func droppedForGood(t *testing.T, f exporter.Factory) *observer.ObservedLogs {
	endpoint, requests := answering(t, http.StatusBadRequest)
	exp, logs := deliverywatchtest.StartMetricsUnstopped(t, f, map[string]any{
		"endpoint":    endpoint,
		"compression": "none",
	})
	for range 5 {
		require.NoError(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()))
	}
	require.Eventually(t, func() bool { return requests.Load() == 5 }, 10*time.Second, 10*time.Millisecond)
	deliverywatchtest.ShutDown(t, exp.Shutdown) // the queue's consumers finish their batches first
	return logs
}

// A backend that refuses every batch for good (a wrong path, a tenant it does not know) had
// the queue log each one; here once per cause and then every 5 minutes, with the points of
// all the batches the line stands for.
func TestBatchesDroppedForGoodAreLoggedOncePerCause(t *testing.T) {
	logs := droppedForGood(t, NewFactory())
	first := deliverywatchtest.CondensedLines(t, logs, deliverywatch.Dropping, "dropped_items")
	assert.Contains(t, first["error"], "400")
	assert.Contains(t, first["note"], "otelcol_exporter_send_failed_metric_points")
}

func TestTheCollectorsExporterLogsEveryDrop(t *testing.T) {
	assert.Equal(t, 5, droppedForGood(t, core.NewFactory()).FilterMessage(deliverywatch.Dropping).Len())
}

// Where retries or the sending queue are off, the collector adds advice to its per-batch
// line ("... Try enabling sending_queue ..."), and the line is condensed all the same: a
// backend that answers 400 without a queue has every export refused, and one that answers
// 503 without retries has the queue drop every batch.
func TestLinesWithAdviceAreCondensedToo(t *testing.T) {
	for name, c := range map[string]struct {
		status         int
		conf           map[string]any
		message, items string
		consumeFails   bool
	}{
		"no queue": {http.StatusBadRequest, map[string]any{"sending_queue": map[string]any{"enabled": false}},
			deliverywatch.Rejecting + " Try enabling sending_queue", "rejected_items", true},
		"no retries": {http.StatusServiceUnavailable, map[string]any{"retry_on_failure": map[string]any{"enabled": false}},
			deliverywatch.Dropping + " Try enabling retry_on_failure", "dropped_items", false},
	} {
		t.Run(name, func(t *testing.T) {
			for _, ours := range []bool{true, false} {
				f := core.NewFactory()
				if ours {
					f = NewFactory()
				}
				endpoint, requests := answering(t, c.status)
				conf := map[string]any{"endpoint": endpoint, "compression": "none"}
				maps.Copy(conf, c.conf)
				exp, logs := deliverywatchtest.StartMetricsUnstopped(t, f, conf)
				for range 5 {
					err := exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge())
					assert.Equal(t, c.consumeFails, err != nil, "%v", err)
				}
				require.Eventually(t, func() bool { return requests.Load() == 5 }, 10*time.Second, 10*time.Millisecond)
				deliverywatchtest.ShutDown(t, exp.Shutdown)
				if ours {
					deliverywatchtest.CondensedLines(t, logs, c.message, c.items)
				} else {
					assert.Equal(t, 5, logs.FilterMessageSnippet(c.message).Len(), "the collector's own exporter: a line per batch")
				}
			}
		})
	}
}
