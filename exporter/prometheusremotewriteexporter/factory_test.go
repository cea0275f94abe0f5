package prometheusremotewriteexporter

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.uber.org/zap/zapcore"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch/deliverywatchtest"
	"github.com/modelplaneai/otelcol-modelplane/internal/freeport"
)

func TestFactoryIsContribs(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "prometheus_remote_write", f.Type().String())
	deliverywatchtest.AssertWraps(t, f, contrib.NewFactory(), "prometheusremotewrite")
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
