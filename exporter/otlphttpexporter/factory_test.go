package otlphttpexporter

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	core "go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch/deliverywatchtest"
	"github.com/modelplaneai/otelcol-modelplane/internal/freeport"
)

func TestFactoryIsTheCollectors(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "otlp_http", f.Type().String())
	deliverywatchtest.AssertWraps(t, f, core.NewFactory(), "otlphttp")

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
