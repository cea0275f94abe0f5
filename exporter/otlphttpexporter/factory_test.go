package otlphttpexporter

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	core "go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/freeport"
)

const retrying = "Exporting failed. Will retry the request after interval."

func TestFactoryIsTheCollectors(t *testing.T) {
	f, c := NewFactory(), core.NewFactory()
	assert.Equal(t, "otlp_http", f.Type().String())
	assert.Equal(t, c.CreateDefaultConfig(), f.CreateDefaultConfig())
	assert.Equal(t, c.TracesStability(), f.TracesStability())
	assert.Equal(t, c.MetricsStability(), f.MetricsStability())
	assert.Equal(t, c.LogsStability(), f.LogsStability())
	assert.Equal(t, c.(xexporter.Factory).ProfilesStability(), f.(xexporter.Factory).ProfilesStability())
	alias, ok := f.(interface{ DeprecatedAlias() component.Type })
	require.True(t, ok)
	assert.Equal(t, "otlphttp", alias.DeprecatedAlias().String(), "configurations that name the old type still load")

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
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"endpoint":         "http://" + addr,
		"sending_queue":    map[string]any{"enabled": false},
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": 0},
	}).Unmarshal(cfg))
	core, logs := observer.New(zapcore.InfoLevel)
	set := exportertest.NewNopSettings(f.Type())
	set.Logger = zap.New(core)
	exp, err := f.CreateMetrics(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { assert.NoError(t, exp.Shutdown(context.Background())) })

	done := make(chan error, 1)
	go func() { done <- exp.ConsumeMetrics(context.Background(), oneGauge()) }()
	time.Sleep(500 * time.Millisecond) // refused, about ten retries

	var requests, accept atomic.Int32
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		if accept.Load() == 1 {
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Error(w, "ingester unavailable", http.StatusServiceUnavailable)
	})}
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	require.Eventually(t, func() bool { return requests.Load() >= 5 }, 10*time.Second, 10*time.Millisecond)
	accept.Store(1)
	select {
	case err := <-done:
		require.NoError(t, err, "the export succeeds once the endpoint accepts it")
	case <-time.After(10 * time.Second):
		t.Fatal("the export did not succeed after the endpoint accepted data")
	}
	return logs.FilterMessage(retrying).Len(), logs.FilterMessage(deliverywatch.AnswersAgain).All()
}

func oneGauge() pmetric.Metrics {
	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("modelplane_queue_requests")
	dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	dp.SetDoubleValue(3)
	return md
}
