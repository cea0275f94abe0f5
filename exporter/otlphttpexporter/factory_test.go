// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package otlphttpexporter

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	core "go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/deliverywatchtest"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

func TestFactoryIsTheCollectors(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "otlp_http", f.Type().String())
	// One consumer where the collector's queue has 10 (deliverywatch.OneConsumer); the rest is the collector's.
	deliverywatchtest.AssertWrapsWithOneConsumer(t, f, core.NewFactory(), "otlphttp",
		func(c component.Config) *configoptional.Optional[exporterhelper.QueueBatchConfig] {
			return queue(c.(*core.Config))
		})

	// Every signal is created, and the configuration the collector holds is left as it was.
	cfg := f.CreateDefaultConfig().(*core.Config)
	cfg.ClientConfig.Endpoint = "http://127.0.0.1:1"
	set := exportertest.NewNopSettings(f.Type())
	for _, create := range []func() (component.Component, error){
		func() (component.Component, error) { return f.CreateTraces(context.Background(), set, cfg) },
		func() (component.Component, error) { return f.CreateMetrics(context.Background(), set, cfg) },
		func() (component.Component, error) { return f.CreateLogs(context.Background(), set, cfg) },
		func() (component.Component, error) {
			return f.(xexporter.Factory).CreateProfiles(context.Background(), set, cfg)
		},
	} {
		exp, err := create()
		require.NoError(t, err)
		require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
		require.NoError(t, exp.Shutdown(context.Background()))
	}
	assert.Empty(t, cfg.ClientConfig.Middlewares)
}

// An endpoint that refuses connections, then answers 503, then accepts: the collector's
// retry logs every retry, here every 20-50 ms. This exporter logs one line per cause and one
// when the endpoint accepts data again, while the export itself is retried until it succeeds.
func TestAnOutageIsLoggedAtItsStartItsChangeAndItsEnd(t *testing.T) {
	lines, again := runOutage(t, NewFactory())
	assert.Equal(t, 2, lines, "refused, then 503: one line each")
	require.Len(t, again, 1)
	assert.GreaterOrEqual(t, again[0].ContextMap()["failed_requests"], int64(6), "the refused requests and the 503s")
}

// The collector's own exporter logs every retry and nothing at the end.
func TestTheCollectorsExporterLogsEveryRetry(t *testing.T) {
	lines, again := runOutage(t, core.NewFactory())
	assert.Greater(t, lines, 5)
	assert.Empty(t, again)
}

func runOutage(t *testing.T, f exporter.Factory) (retries int, again []observer.LoggedEntry) {
	addr := freeport.Addr(t)
	exp, logs := deliverywatchtest.StartMetrics(t, f, map[string]any{
		"endpoint":         "http://" + addr,
		"sending_queue":    map[string]any{"enabled": false},
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": 0},
	})
	done := make(chan error, 1)
	go func() { done <- exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()) }()
	time.Sleep(500 * time.Millisecond) // refused, about ten retries

	deliverywatchtest.ServeAfterOutage(t, addr, http.StatusOK, done)
	return logs.FilterMessage(deliverywatchtest.Retrying).Len(), logs.FilterMessage(deliverywatch.AnswersAgain).All()
}

// unanswering serves OTLP/HTTP on a loopback address that takes each request and never
// answers it, and counts the requests.
func unanswering(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		<-r.Context().Done()
	})}
	ln, err := net.Listen("tcp", freeport.Addr(t))
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String(), &requests
}

// queueConfig is the embedded modelplane:otlp's delivery settings with a client timeout of
// 10 minutes and one consumer, so that one request is in flight when the exporter stops.
func queueConfig(endpoint string, queue map[string]any) map[string]any {
	queue["num_consumers"] = 1
	return map[string]any{
		"endpoint":         endpoint,
		"timeout":          "10m",
		"compression":      "none",
		"sending_queue":    queue,
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "100ms", "max_elapsed_time": 0},
	}
}

// An endpoint that takes requests and never answers: a stopping exporter cancels the request
// in flight after the time it is given and sends no other, so the collector stops; its
// in-memory queue drops what is left, counted.
func TestAStoppingExporterGivesUpOnAnEndpointThatDoesNotAnswer(t *testing.T) {
	endpoint, requests := unanswering(t)
	logs := deliverywatchtest.StopWithThreeQueued(t, newFactory(300*time.Millisecond),
		queueConfig(endpoint, map[string]any{"enabled": true, "queue_size": 100}), func() bool { return requests.Load() == 1 })

	gaveUp := logs.FilterMessage(deliverywatch.GivesUp).All()
	require.Len(t, gaveUp, 1)
	assert.Equal(t, endpoint+"/v1/metrics", gaveUp[0].ContextMap()["endpoint"])
	assert.Equal(t, "not persistent: what is left is dropped", gaveUp[0].ContextMap()["queue"])
	var dropped int64
	for _, e := range logs.FilterMessageSnippet("Exporting failed. Dropping data.").All() {
		dropped += e.ContextMap()["dropped_items"].(int64)
	}
	assert.EqualValues(t, 3, dropped)
	assert.EqualValues(t, 1, requests.Load(), "the batches left are not sent to an endpoint that has not answered")
}

// With a persistent sending queue, what a stopping exporter gives up on stays on disk: the
// next start sends it, the batch that was in flight included and first, and the log says it
// was kept, not dropped.
func TestAStoppingExporterKeepsAPersistentQueue(t *testing.T) {
	conf := func(endpoint string) map[string]any {
		return queueConfig(endpoint, map[string]any{"enabled": true, "queue_size": 100, "storage": deliverywatchtest.Storage.String()})
	}
	endpoint, requests := unanswering(t)
	// The endpoint of the next start, with the backend back.
	var mu sync.Mutex
	var values []float64
	sent := func() []float64 {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(values)
	}
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			req := pmetricotlp.NewExportRequest()
			if req.UnmarshalProto(body) == nil {
				mu.Lock()
				values = append(values, deliverywatchtest.Values(req.Metrics())...)
				mu.Unlock()
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	})}
	ln, err := net.Listen("tcp", freeport.Addr(t))
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	logs := deliverywatchtest.StopKeepingTheQueue(t, newFactory(300*time.Millisecond), conf,
		endpoint, func() bool { return requests.Load() == 1 }, "http://"+ln.Addr().String())
	// The batch in flight is kept, and the log says so rather than "Dropping data".
	gaveUp := logs.FilterMessage(deliverywatch.GivesUp).All()
	require.Len(t, gaveUp, 1)
	assert.Equal(t, "persistent: what is left is kept for the next start", gaveUp[0].ContextMap()["queue"])
	keptLines := logs.FilterMessage(deliverywatch.Kept).All()
	require.Len(t, keptLines, 1)
	assert.Equal(t, zapcore.WarnLevel, keptLines[0].Level)
	assert.EqualValues(t, 1, deliverywatchtest.KeptPoints(logs))
	require.Eventually(t, func() bool { return len(sent()) == 3 }, 10*time.Second, 10*time.Millisecond,
		"every queued point, the one in flight at the stop included, is sent at the next start")
	assert.Equal(t, []float64{1, 2, 3}, sent(), "in the order they were queued, the one in flight at the stop first")
}
