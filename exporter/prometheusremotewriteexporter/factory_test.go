// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package prometheusremotewriteexporter

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/deliverywatchtest"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

func TestFactoryIsContribs(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "prometheus_remote_write", f.Type().String())
	deliverywatchtest.AssertWrapsAs(t, f, contrib.NewFactory(), "prometheusremotewrite",
		func(c component.Config) component.Config { return &c.(*Config).Config })
	assert.False(t, f.CreateDefaultConfig().(*Config).SendingQueue.HasValue(), "no sending queue unless one is set: contrib's own")
}

// The user's configuration, which the collector keeps and compares at a reload, is not
// changed by the middleware the exporter adds to its own copy.
func TestConfigurationIsLeftAsItWas(t *testing.T) {
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.HTTP.Endpoint = "http://127.0.0.1:1/api/v1/write"
	exp, err := f.CreateMetrics(context.Background(), exportertest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	assert.Empty(t, cfg.HTTP.Middlewares)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, exp.Shutdown(context.Background()))
}

// An endpoint that refuses connections, then answers 503, then accepts: contrib's exporter
// retries each without a word while the connection is refused and logs an error at every
// retry of a 503. This one logs one line for the refused connections, one for the 503s, and
// one when a write is accepted again, while the batch itself is retried until it is written.
func TestAnOutageIsLoggedAtItsStartItsChangeAndItsEnd(t *testing.T) {
	addr := freeport.Addr(t)
	exp, logs := deliverywatchtest.StartMetrics(t, NewFactory(), map[string]any{
		"endpoint":           "http://" + addr + "/api/v1/write",
		"remote_write_queue": map[string]any{"enabled": false},
		"retry_on_failure":   map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": 0},
		"timeout":            "30s",
	})
	done := make(chan error, 1)
	go func() { done <- exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()) }()

	// Refused: nothing listens yet.
	require.Eventually(t, func() bool { return logs.FilterMessage(deliverywatch.Unanswered).Len() > 0 }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond)

	// 503, then accepted.
	deliverywatchtest.ServeAfterOutage(t, addr, http.StatusNoContent, done)

	refused := logs.FilterMessage(deliverywatch.Unanswered).All()
	require.Len(t, refused, 1, "many refused connections, one line")
	assert.Equal(t, zapcore.WarnLevel, refused[0].Level)
	assert.Equal(t, "http://"+addr+"/api/v1/write", refused[0].ContextMap()["endpoint"])
	assert.Contains(t, refused[0].ContextMap()["error"], "connection refused")
	assert.Contains(t, refused[0].ContextMap()["note"], "retried")

	unavailable := logs.FilterMessage(refusedWrite).All()
	require.Len(t, unavailable, 1, "five or more 503s, one line")
	assert.EqualValues(t, http.StatusServiceUnavailable, unavailable[0].ContextMap()["status_code"])

	again := logs.FilterMessage(deliverywatch.AnswersAgain).All()
	require.Len(t, again, 1)
	assert.Equal(t, zapcore.InfoLevel, again[0].Level)
	assert.GreaterOrEqual(t, again[0].ContextMap()["failed_requests"], int64(6), "the refused writes and the 503s")
	assert.Equal(t, "http://"+addr+"/api/v1/write", again[0].ContextMap()["endpoint"])
}

// A write that takes longer than the client's timeout is a write without an answer too.
func TestAnEndpointThatDoesNotAnswerInTimeIsLogged(t *testing.T) {
	release := make(chan struct{})
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	ln, err := net.Listen("tcp", freeport.Addr(t))
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { close(release); _ = srv.Close() })

	exp, logs := deliverywatchtest.StartMetrics(t, NewFactory(), map[string]any{
		"endpoint":           "http://" + ln.Addr().String() + "/api/v1/write",
		"remote_write_queue": map[string]any{"enabled": false},
		"retry_on_failure":   map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": "1s"},
		"timeout":            "200ms",
		"http":               map[string]any{"endpoint": "http://" + ln.Addr().String() + "/api/v1/write", "timeout": "100ms"},
	})
	assert.Error(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()), "never answered, the batch fails")
	lines := logs.FilterMessage(deliverywatch.Unanswered).All()
	require.NotEmpty(t, lines)
	assert.Contains(t, lines[0].ContextMap()["error"], "no answer before the request's deadline")
}

// serve answers every write on a loopback address with handle, and counts the writes.
func serve(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) (string, *atomic.Int32) {
	t.Helper()
	var writes atomic.Int32
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writes.Add(1)
		handle(w, r)
	})}
	ln, err := net.Listen("tcp", freeport.Addr(t))
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/api/v1/write", &writes
}

// startQueued starts the exporter with the delivery settings of docs/reliability.md (a
// queue, retries without an end for up to 10 minutes, one write at a time), giving up
// giveUpAfter into its shutdown, and queues batches of one point each.
func startQueued(t *testing.T, endpoint string, giveUpAfter time.Duration, batches int) (exporter.Metrics, *observer.ObservedLogs) {
	t.Helper()
	exp, logs := deliverywatchtest.StartMetricsUnstopped(t, newFactory(giveUpAfter), map[string]any{
		"endpoint":                      endpoint,
		"remote_write_queue":            map[string]any{"queue_size": 10000},
		"max_batch_request_parallelism": 1,
		"retry_on_failure":              map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "100ms", "max_elapsed_time": 0},
		"timeout":                       "10m",
	})
	for range batches {
		require.NoError(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()))
	}
	return exp, logs
}

// A collector asked to stop while its remote-write backend answers 503 (or refuses
// connections) stops: since contrib v0.165 the exporter stops retrying as its shutdown
// begins, so the queue's batches are tried once and dropped, each with a count of its points,
// well before the give-up time of this distribution's watch, which is not reached.
func TestAStoppingExporterGivesUpOnAFailingEndpoint(t *testing.T) {
	endpoint, writes := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "ingester unavailable", http.StatusServiceUnavailable)
	})
	exp, logs := startQueued(t, endpoint, giveUpWhenStopping, 5)
	require.Eventually(t, func() bool { return writes.Load() >= 3 }, 10*time.Second, 10*time.Millisecond, "the first batch is retried")
	began := time.Now()
	deliverywatchtest.ShutDown(t, exp.Shutdown)
	assert.Less(t, time.Since(began), giveUpWhenStopping, "stopped before the watch would give up")
	assert.EqualValues(t, 5, deliverywatchtest.DroppedPoints(logs), "each queued point dropped, and counted")
	sent := writes.Load()
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, sent, writes.Load(), "nothing is sent after the shutdown")
}

// A stop time from the environment that is no duration stops the exporter from being built,
// with the variable and the value named.
func TestTheEnvironmentSetsTheTimeAStoppingExporterHas(t *testing.T) {
	endpoint, _ := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "ingester unavailable", http.StatusServiceUnavailable)
	})
	t.Setenv(deliverywatch.GiveUpEnv, "45")
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.HTTP.Endpoint = endpoint
	_, err := f.CreateMetrics(context.Background(), exportertest.NewNopSettings(f.Type()), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), deliverywatch.GiveUpEnv+`="45"`)
}

// An endpoint that takes the write and never answers: the write in flight is cancelled
// when the exporter gives up, rather than waiting for the client's 10-minute timeout.
func TestAStoppingExporterCancelsAWriteWithoutAnswer(t *testing.T) {
	endpoint, writes := serve(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	exp, logs := startQueued(t, endpoint, 300*time.Millisecond, 2)
	require.Eventually(t, func() bool { return writes.Load() == 1 }, 10*time.Second, 10*time.Millisecond)
	deliverywatchtest.ShutDown(t, exp.Shutdown)

	gaveUp := logs.FilterMessage(deliverywatch.GivesUp).All()
	require.Len(t, gaveUp, 1)
	assert.NotContains(t, gaveUp[0].ContextMap(), "failed_requests", "no write failed: the one in flight had no answer yet")
	assert.EqualValues(t, 2, deliverywatchtest.DroppedPoints(logs))
	assert.EqualValues(t, 1, writes.Load(), "the second batch is not sent to an endpoint that has not answered the first")
}

// A backend that accepts writes receives the whole queue at a shutdown, however long that
// takes: the exporter gives up only on an endpoint that fails.
func TestAStoppingExporterDeliversToAnEndpointThatAccepts(t *testing.T) {
	endpoint, writes := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(10 * time.Millisecond)
		w.WriteHeader(http.StatusNoContent)
	})
	const batches = 100 // about 1 s of writes, past the 300 ms it is given
	exp, logs := startQueued(t, endpoint, 300*time.Millisecond, batches)
	deliverywatchtest.ShutDown(t, exp.Shutdown)
	assert.EqualValues(t, batches, writes.Load())
	assert.Zero(t, logs.FilterMessage(deliverywatch.GivesUp).Len())
	assert.Zero(t, deliverywatchtest.DroppedPoints(logs))
}
