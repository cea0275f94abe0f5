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
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/freeport"
)

func TestFactoryIsContribs(t *testing.T) {
	f, c := NewFactory(), contrib.NewFactory()
	assert.Equal(t, "prometheus_remote_write", f.Type().String())
	assert.Equal(t, c.CreateDefaultConfig(), f.CreateDefaultConfig())
	assert.Equal(t, c.MetricsStability(), f.MetricsStability())
	alias, ok := f.(interface{ DeprecatedAlias() component.Type })
	require.True(t, ok)
	assert.Equal(t, "prometheusremotewrite", alias.DeprecatedAlias().String(), "configurations that name the old type still load")
}

// The user's configuration, which the collector keeps and compares at a reload, is not
// changed by the middleware the exporter adds to its own copy.
func TestConfigurationIsLeftAsItWas(t *testing.T) {
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*contrib.Config)
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
	f := NewFactory()
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"endpoint":           "http://" + addr + "/api/v1/write",
		"remote_write_queue": map[string]any{"enabled": false},
		"retry_on_failure":   map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": 0},
		"timeout":            "30s",
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

	// Refused: nothing listens yet.
	require.Eventually(t, func() bool { return logs.FilterMessage(deliverywatch.Unanswered).Len() > 0 }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond)

	// 503, then accepted.
	var requests, accept atomic.Int32
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		if accept.Load() == 1 {
			w.WriteHeader(http.StatusNoContent)
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
		require.NoError(t, err, "the batch is written once the endpoint accepts it")
	case <-time.After(10 * time.Second):
		t.Fatal("the batch was not written after the endpoint accepted writes")
	}

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

	f := NewFactory()
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"endpoint":           "http://" + ln.Addr().String() + "/api/v1/write",
		"remote_write_queue": map[string]any{"enabled": false},
		"retry_on_failure":   map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": "1s"},
		"timeout":            "200ms",
	}).Unmarshal(cfg))
	cfg.(*contrib.Config).HTTP.Timeout = 100 * time.Millisecond
	core, logs := observer.New(zapcore.InfoLevel)
	set := exportertest.NewNopSettings(f.Type())
	set.Logger = zap.New(core)
	exp, err := f.CreateMetrics(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { assert.NoError(t, exp.Shutdown(context.Background())) })

	assert.Error(t, exp.ConsumeMetrics(context.Background(), oneGauge()), "never answered, the batch fails")
	lines := logs.FilterMessage(deliverywatch.Unanswered).All()
	require.NotEmpty(t, lines)
	assert.Contains(t, lines[0].ContextMap()["error"], "no answer before the request's deadline")
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
