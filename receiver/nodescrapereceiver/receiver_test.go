// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/prometheus/prometheus/discovery/file" // file_sd, for targets that come and go
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
)

const smallPage = `# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 3
# TYPE vllm:prompt_tokens counter
vllm:prompt_tokens_total{engine="0",model_name="m"} 120
# TYPE other gauge
other 1
`

// page is a target on loopback whose answer the test changes.
type pageServer struct {
	*httptest.Server
	body   atomic.Value // string
	status atomic.Int32
}

func newPageServer(t *testing.T, body string) *pageServer {
	s := &pageServer{}
	s.body.Store(body)
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.WriteHeader(int(s.status.Load()))
		_, _ = w.Write([]byte(s.body.Load().(string)))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *pageServer) addr() string { return strings.TrimPrefix(s.URL, "http://") }

// start runs the receiver on a `config` and returns its sink and log.
func start(t *testing.T, config map[string]any) (*consumertest.MetricsSink, *observer.ObservedLogs) {
	t.Helper()
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	require.NoError(t, confmap.NewFromStringMap(map[string]any{"config": config}).Unmarshal(cfg))
	require.NoError(t, cfg.Validate())
	core, logs := observer.New(zap.InfoLevel)
	set := receivertest.NewNopSettings(NewFactory().Type())
	set.Logger = zap.New(core)
	sink := new(consumertest.MetricsSink)
	r, err := NewFactory().CreateMetrics(context.Background(), set, cfg, sink)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, r.Shutdown(context.Background())) })
	return sink, logs
}

func scrapeJob(name, addr string, extra map[string]any) map[string]any {
	j := map[string]any{
		"job_name": name, "scrape_interval": "100ms", "scrape_timeout": "100ms",
		"static_configs": []any{map[string]any{"targets": []any{addr}, "labels": map[string]any{"engine": "vllm", "replica": "r0"}}},
	}
	for k, v := range extra {
		j[k] = v
	}
	return j
}

// points is every point of name in the sink's scrapes so far, in order.
func points(sink *consumertest.MetricsSink, name string) []pmetric.NumberDataPoint {
	var out []pmetric.NumberDataPoint
	for _, md := range sink.AllMetrics() {
		rms := md.ResourceMetrics()
		for i := 0; i < rms.Len(); i++ {
			sms := rms.At(i).ScopeMetrics()
			for j := 0; j < sms.Len(); j++ {
				ms := sms.At(j).Metrics()
				for k := 0; k < ms.Len(); k++ {
					m := ms.At(k)
					if m.Name() != name {
						continue
					}
					var dps pmetric.NumberDataPointSlice
					if m.Type() == pmetric.MetricTypeSum {
						dps = m.Sum().DataPoints()
					} else {
						dps = m.Gauge().DataPoints()
					}
					for l := 0; l < dps.Len(); l++ {
						out = append(out, dps.At(l))
					}
				}
			}
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 20*time.Millisecond, what)
}

func TestScrapesSeriesWithTheTargetsLabelsAndUp(t *testing.T) {
	s := newPageServer(t, smallPage)
	sink, _ := start(t, map[string]any{"scrape_configs": []any{scrapeJob("vllm", s.addr(), nil)}})
	waitFor(t, "a scrape", func() bool { return len(points(sink, "up")) > 0 })

	up := points(sink, "up")[0]
	assert.Equal(t, 1.0, up.DoubleValue())
	waiting := points(sink, "vllm:num_requests_waiting")[0]
	assert.Equal(t, 3.0, waiting.DoubleValue())
	attrs := waiting.Attributes().AsRaw()
	assert.Equal(t, map[string]any{"engine": "vllm", "exported_engine": "0", "model_name": "m", "replica": "r0"}, attrs,
		"the target's engine label wins; the page's becomes exported_engine")
	assert.Len(t, points(sink, "vllm:prompt_tokens_total"), len(points(sink, "up")), "a counter, as a Sum")

	rm := sink.AllMetrics()[0].ResourceMetrics().At(0)
	assert.Equal(t, "vllm", attrOf(rm, "service.name"))
	assert.Equal(t, s.addr(), attrOf(rm, "service.instance.id"))
}

func attrOf(rm pmetric.ResourceMetrics, k string) string {
	v, _ := rm.Resource().Attributes().Get(k)
	return v.AsString()
}

func TestHonorLabelsKeepsThePagesLabel(t *testing.T) {
	s := newPageServer(t, smallPage)
	sink, _ := start(t, map[string]any{"scrape_configs": []any{scrapeJob("vllm", s.addr(), map[string]any{"honor_labels": true})}})
	waitFor(t, "a scrape", func() bool { return len(points(sink, "vllm:num_requests_waiting")) > 0 })
	assert.Equal(t, map[string]any{"engine": "0", "model_name": "m", "replica": "r0"},
		points(sink, "vllm:num_requests_waiting")[0].Attributes().AsRaw())
}

// A target that fails: up 0, one warning naming it and why, and a staleness marker for each
// series it had; when it answers again its series come back.
func TestAFailedScrapeMarksItsSeriesStale(t *testing.T) {
	s := newPageServer(t, smallPage)
	sink, logs := start(t, map[string]any{"scrape_configs": []any{scrapeJob("vllm", s.addr(), nil)}})
	waitFor(t, "a scrape", func() bool { return len(points(sink, "vllm:num_requests_waiting")) > 0 })

	s.status.Store(http.StatusInternalServerError)
	waitFor(t, "up 0", func() bool { ups := points(sink, "up"); return ups[len(ups)-1].DoubleValue() == 0 })
	waiting := points(sink, "vllm:num_requests_waiting")
	assert.True(t, waiting[len(waiting)-1].Flags().NoRecordedValue(), "a staleness marker")
	failed := logs.FilterMessage(deliverywatch.FailedScrape).All()
	require.NotEmpty(t, failed)
	assert.Contains(t, failed[0].ContextMap()["error"], "500")
	assert.Contains(t, failed[0].ContextMap()["target_labels"], `replica="r0"`)

	s.status.Store(http.StatusOK)
	waitFor(t, "the series back", func() bool {
		w := points(sink, "vllm:num_requests_waiting")
		return !w[len(w)-1].Flags().NoRecordedValue() && w[len(w)-1].DoubleValue() == 3
	})
}

// sample_limit and body_size_limit fail the target's scrape alone, saying which.
func TestLimitsFailTheirTarget(t *testing.T) {
	for _, tc := range []struct {
		limit map[string]any
		error string
	}{
		{map[string]any{"sample_limit": 2}, "sample limit exceeded"},
		{map[string]any{"body_size_limit": "100B"}, "body size limit exceeded"},
	} {
		t.Run(tc.error, func(t *testing.T) {
			over := newPageServer(t, smallPage)
			fine := newPageServer(t, "small 1\n")
			sink, logs := start(t, map[string]any{"scrape_configs": []any{scrapeJob("over", over.addr(), tc.limit), scrapeJob("fine", fine.addr(), tc.limit)}})
			waitFor(t, "both scraped", func() bool { return len(points(sink, "up")) >= 4 })
			assert.Empty(t, points(sink, "vllm:num_requests_waiting"), "no series of the target over the limit")
			assert.NotEmpty(t, points(sink, "small"), "the other target is scraped")
			failed := logs.FilterMessage(deliverywatch.FailedScrape).All()
			require.NotEmpty(t, failed)
			assert.Contains(t, failed[0].ContextMap()["error"], tc.error)
		})
	}
}

// The name rules drop lines before their labels are read; the rest apply to each kept
// series, after the target's labels, in order.
func TestMetricRelabelling(t *testing.T) {
	s := newPageServer(t, smallPage)
	sink, _ := start(t, map[string]any{"scrape_configs": []any{scrapeJob("vllm", s.addr(), map[string]any{
		"metric_relabel_configs": []any{
			map[string]any{"source_labels": []any{"exported_engine"}, "regex": "(.+)", "target_label": "engine_index"},
			map[string]any{"regex": "exported_engine", "action": "labeldrop"},
			map[string]any{"source_labels": []any{"__name__"}, "regex": "vllm:.*", "action": "keep"},
		},
	})}})
	waitFor(t, "a scrape", func() bool { return len(points(sink, "vllm:num_requests_waiting")) > 0 })
	assert.Empty(t, points(sink, "other"))
	assert.Equal(t, map[string]any{"engine": "vllm", "engine_index": "0", "model_name": "m", "replica": "r0"},
		points(sink, "vllm:num_requests_waiting")[0].Attributes().AsRaw())
	ups := points(sink, "up")
	assert.Equal(t, 1.0, ups[0].DoubleValue(), "the report series are not relabelled")
	scraped, kept := points(sink, "scrape_samples_scraped"), points(sink, "scrape_samples_post_metric_relabeling")
	assert.Equal(t, 3.0, scraped[0].DoubleValue())
	assert.Equal(t, 2.0, kept[0].DoubleValue())
}

// A target that discovery no longer finds goes stale: each of its series and its up.
func TestATargetThatGoesAwayGoesStale(t *testing.T) {
	s := newPageServer(t, smallPage)
	file := filepath.Join(t.TempDir(), "targets.json")
	write := func(targets string) {
		require.NoError(t, os.WriteFile(file+".tmp", []byte(targets), 0o600))
		require.NoError(t, os.Rename(file+".tmp", file))
	}
	write(fmt.Sprintf(`[{"targets": [%q], "labels": {"replica": "r0"}}]`, s.addr()))
	sink, _ := start(t, map[string]any{"scrape_configs": []any{map[string]any{
		"job_name": "filed", "scrape_interval": "100ms", "scrape_timeout": "100ms",
		"file_sd_configs": []any{map[string]any{"files": []any{file}, "refresh_interval": "1s"}},
	}}})
	waitFor(t, "a scrape", func() bool { return len(points(sink, "vllm:num_requests_waiting")) > 0 })
	write(`[]`)
	waitFor(t, "stale markers", func() bool {
		ups := points(sink, "up")
		return ups[len(ups)-1].Flags().NoRecordedValue()
	})
	w := points(sink, "vllm:num_requests_waiting")
	assert.True(t, w[len(w)-1].Flags().NoRecordedValue())
}
