// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package prometheusreceiver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/points"
)

func TestFactoryIsContribs(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "prometheus", f.Type().String())
	want := contrib.NewFactory().CreateDefaultConfig().(*contrib.Config)
	require.False(t, want.DiscoveryReloadOnStartup, "contrib's default")
	want.DiscoveryReloadOnStartup = true
	assert.Equal(t, want, f.CreateDefaultConfig(), "contrib's default config, discovery_reload_on_startup on")
	assert.Equal(t, contrib.NewFactory().MetricsStability(), f.MetricsStability())
}

// With the default config a target is scraped as soon as it is found, not at the scrape
// manager's first reload 5 s after the start, as contrib's default has it (and a config that
// sets discovery_reload_on_startup false still gets). A real receiver, a real HTTP server.
func TestFirstScrapeAtStart(t *testing.T) {
	untilFirstScrape := func(t *testing.T, conf map[string]any) time.Duration {
		t.Helper()
		first := make(chan time.Time, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			select {
			case first <- time.Now():
			default:
			}
			_, _ = w.Write([]byte("vllm:num_requests_running 1\n"))
		}))
		t.Cleanup(srv.Close)
		conf["config"] = map[string]any{"scrape_configs": []any{map[string]any{
			"job_name":        "vllm",
			"scrape_interval": "1s",
			"static_configs":  []any{map[string]any{"targets": []any{strings.TrimPrefix(srv.URL, "http://")}}},
		}}}
		f := NewFactory()
		cfg := f.CreateDefaultConfig()
		require.NoError(t, confmap.NewFromStringMap(conf).Unmarshal(cfg))
		rcv, err := f.CreateMetrics(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, consumertest.NewNop())
		require.NoError(t, err)
		start := time.Now()
		require.NoError(t, rcv.Start(context.Background(), componenttest.NewNopHost()))
		t.Cleanup(func() { assert.NoError(t, rcv.Shutdown(context.Background())) })
		select {
		case at := <-first:
			return at.Sub(start)
		case <-time.After(30 * time.Second):
			t.Fatal("no scrape in 30 s")
			return 0
		}
	}
	assert.Less(t, untilFirstScrape(t, map[string]any{}), 2*time.Second, "the default: at once")
	assert.GreaterOrEqual(t, untilFirstScrape(t, map[string]any{"discovery_reload_on_startup": false}), 4*time.Second,
		"set false: at the scrape manager's first reload, 5 s after the start")
}

// A target that keeps failing is logged once, and again at once when the cause changes,
// while every failed scrape still reaches the pipeline as up 0. A real receiver scrapes a
// real HTTP server every second.
func TestFailedScrapesAreLoggedOncePerCause(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusInternalServerError)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(int(status.Load()))
	}))
	t.Cleanup(srv.Close)

	f := newFactory(time.Minute, time.Now)
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{"config": map[string]any{"scrape_configs": []any{map[string]any{
		"job_name":        "vllm",
		"scrape_interval": "1s",
		"scrape_timeout":  "1s",
		"static_configs":  []any{map[string]any{"targets": []any{strings.TrimPrefix(srv.URL, "http://")}}},
	}}}}).Unmarshal(cfg))
	core, logs := observer.New(zapcore.InfoLevel)
	set := receivertest.NewNopSettings(f.Type())
	set.Logger = zap.New(core)
	sink := new(consumertest.MetricsSink)
	rcv, err := f.CreateMetrics(context.Background(), set, cfg, sink)
	require.NoError(t, err)
	require.NoError(t, rcv.Start(context.Background(), componenttest.NewNopHost()))
	var stopped bool
	t.Cleanup(func() {
		if !stopped {
			assert.NoError(t, rcv.Shutdown(context.Background()))
		}
	})

	require.Eventually(t, func() bool { return failedScrapes(sink) >= 5 }, 30*time.Second, 100*time.Millisecond)
	lines := logs.FilterMessage(deliverywatch.FailedScrape).AllUntimed()
	require.Len(t, lines, 1, "five failures of one cause, one line")
	first := lines[0].ContextMap()
	assert.Contains(t, first["error"], "500 Internal Server Error")
	assert.Contains(t, first["target_labels"], `job="vllm"`)
	assert.Contains(t, first["note"], "logged once every 1m0s")
	assert.NotContains(t, first, "repeats")

	status.Store(http.StatusServiceUnavailable)
	require.Eventually(t, func() bool { return logs.FilterMessage(deliverywatch.FailedScrape).Len() == 2 }, 30*time.Second, 100*time.Millisecond,
		"a new cause is logged at the first failure it causes, not a minute later")
	second := logs.FilterMessage(deliverywatch.FailedScrape).AllUntimed()[1].ContextMap()
	assert.Contains(t, second["error"], "503 Service Unavailable")
	assert.NotContains(t, second, "note")
	// The second line counts the failures since the first, itself included.
	repeats, ok := second["repeats"].(int64)
	require.True(t, ok, "%v", second)
	assert.GreaterOrEqual(t, repeats, int64(5))
	assert.LessOrEqual(t, 1+repeats, int64(failedScrapes(sink)+1), "no more failures counted than happened")

	// The failures held when the receiver stops are counted in a line as it stops, so the
	// lines add up to the failed scrapes.
	before := failedScrapes(sink)
	require.Eventually(t, func() bool { return failedScrapes(sink) >= before+3 }, 30*time.Second, 100*time.Millisecond)
	stopped = true
	require.NoError(t, rcv.Shutdown(context.Background()))
	lines = logs.FilterMessage(deliverywatch.FailedScrape).AllUntimed()
	require.Len(t, lines, 3)
	third := lines[2].ContextMap()
	assert.Equal(t, deliverywatch.FlushNote, third["note"])
	assert.Contains(t, third["error"], "503 Service Unavailable")
	held, ok := third["repeats"].(int64)
	require.True(t, ok, "%v", third)
	total := 1 + repeats + held
	assert.LessOrEqual(t, total, int64(failedScrapes(sink)), "no more failures counted than happened")
	assert.GreaterOrEqual(t, total, int64(failedScrapes(sink)-1), "every failure counted but one the stop may have cut short")
}

// failedScrapes counts the up points of 0 the receiver sent.
func failedScrapes(sink *consumertest.MetricsSink) int {
	n := 0
	for _, md := range sink.AllMetrics() {
		points.WalkNumbers(md, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
			if m.Name() == "up" && dp.DoubleValue() == 0 {
				n++
			}
		})
	}
	return n
}
