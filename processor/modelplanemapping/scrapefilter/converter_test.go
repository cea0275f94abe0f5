// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package scrapefilter

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/prometheus/model/relabel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

func convert(t *testing.T, doc string) map[string]any {
	t.Helper()
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &raw))
	conf := confmap.NewFromStringMap(raw)
	require.NoError(t, NewFactory().Create(confmap.ConverterSettings{}).Convert(context.Background(), conf))
	return conf.ToStringMap()
}

func jobs(t *testing.T, conf map[string]any, receiver string) []any {
	t.Helper()
	r := conf["receivers"].(map[string]any)[receiver].(map[string]any)
	return r["config"].(map[string]any)["scrape_configs"].([]any)
}

func relabels(job any) []any {
	r, _ := job.(map[string]any)["metric_relabel_configs"].([]any)
	return r
}

const pipelineDoc = `
receivers:
  prometheus:
    config:
      scrape_configs:
        - job_name: vllm
          static_configs: [{targets: ["127.0.0.1:8000"]}]
          metric_relabel_configs:
            - {source_labels: [__name__], regex: "vllm:(.*)", target_label: __name__, replacement: "vllm:$1"}
        - job_name: dcgm
          static_configs: [{targets: ["127.0.0.1:9400"]}]
  prometheus/raw:
    config:
      scrape_configs:
        - job_name: other
          static_configs: [{targets: ["127.0.0.1:9100"]}]
  otlp: {}
processors:
  modelplane_mapping:
    builtin: [modelplane-vllm, modelplane-gpu]
    scrape_filter: true
    mappings:
      - name: mine
        metrics:
          - {from: my_engine_latency_ms, to: modelplane_request_duration_seconds, fromUnit: Milliseconds}
  modelplane_mapping/plain: {}
exporters:
  debug: {}
service:
  pipelines:
    metrics:
      receivers: [prometheus, otlp]
      processors: [modelplane_mapping]
      exporters: [debug]
    metrics/raw:
      receivers: [prometheus/raw]
      processors: [modelplane_mapping/plain]
      exporters: [debug]
`

// keep_sources patterns go into the keep rule as patterns.
func TestKeepRuleKeepsSourcePatterns(t *testing.T) {
	re := KeepMatcher([]string{"vllm:num_requests_waiting", "DCGM_FI_*", "sglang:*_total"})
	for _, kept := range []string{"DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_PROF_DRAM_ACTIVE", "sglang:prompt_tokens_total", "vllm:num_requests_waiting", "modelplane_x"} {
		assert.True(t, re.MatchString(kept), kept)
	}
	for _, dropped := range []string{"XDCGM_FI_DEV", "sglang:num_queue_reqs", "vllm:num_requests_running"} {
		assert.False(t, re.MatchString(dropped), dropped)
	}
}

func TestKeepRuleAddedToEveryJobOfFilteredReceivers(t *testing.T) {
	conf := convert(t, pipelineDoc)
	js := jobs(t, conf, "prometheus")
	require.Len(t, js, 2)
	// The user's own relabelling stays first: the keep rule sees the names it produces.
	require.Len(t, relabels(js[0]), 2)
	assert.Equal(t, "vllm:(.*)", relabels(js[0])[0].(map[string]any)["regex"])
	require.Len(t, relabels(js[1]), 1)
	rule := relabels(js[1])[0].(map[string]any)
	assert.Equal(t, "keep", rule["action"])
	assert.Equal(t, []any{"__name__"}, rule["source_labels"])

	// Read as Prometheus reads it (relabel.NewRegexp anchors it).
	re := relabel.MustNewRegexp(rule["regex"].(string))
	for _, kept := range []string{
		"vllm:num_requests_waiting",
		"vllm:e2e_request_latency_seconds_bucket", "vllm:e2e_request_latency_seconds_sum", "vllm:e2e_request_latency_seconds_count",
		"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits_created",
		"DCGM_FI_DEV_FB_USED", "my_engine_latency_ms_bucket", "modelplane_anything", "target_info",
	} {
		assert.True(t, re.MatchString(kept), "should keep %s", kept)
	}
	for _, dropped := range []string{
		"vllm:cache_config_info", "python_gc_objects_collected_total", "vllm:num_requests_waiting_by_reason",
		"sglang:num_queue_reqs", // modelplane-sglang is not selected
		"DCGM_FI_DEV_FB_USEDX", "xvllm:num_requests_waiting",
	} {
		assert.False(t, re.MatchString(dropped), "should drop %s", dropped)
	}

	// A receiver whose pipeline's processor does not ask for the filter is left alone.
	assert.Empty(t, relabels(jobs(t, conf, "prometheus/raw")[0]))
}

// oneReceiver is a config with one Prometheus receiver of one job, the given processors and
// pipelines (YAML indented as under processors: and service::pipelines:), and a debug exporter.
func oneReceiver(processors, pipelines string) string {
	return `
receivers:
  prometheus:
    config:
      scrape_configs: [{job_name: a, static_configs: [{targets: ["127.0.0.1:1"]}]}]
processors:
` + processors + `
exporters:
  debug: {}
service:
  pipelines:
` + pipelines + "\n"
}

func TestReceiverFeedingAnUnfilteredPipelineKeepsEverything(t *testing.T) {
	doc := oneReceiver(`  modelplane_mapping: {scrape_filter: true}`, `    metrics/mapped: {receivers: [prometheus], processors: [modelplane_mapping], exporters: [debug]}
    metrics/all: {receivers: [prometheus], exporters: [debug]}`)
	assert.Empty(t, relabels(jobs(t, convert(t, doc), "prometheus")[0]))
}

func TestNoFilterWithoutScrapeFilter(t *testing.T) {
	doc := oneReceiver(`  modelplane_mapping: {}`, `    metrics: {receivers: [prometheus], processors: [modelplane_mapping], exporters: [debug]}`)
	assert.Empty(t, relabels(jobs(t, convert(t, doc), "prometheus")[0]))
}

func TestMappingFilesAtStartAreKept(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "triton.yaml"), []byte(`apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: triton}
spec:
  metrics:
    - {from: nv_inference_queue_duration_us, to: modelplane_request_queue_seconds, fromUnit: Microseconds}
`), 0o600))
	doc := oneReceiver(`  modelplane_mapping:
    builtin: []
    scrape_filter: true
    mapping_files: ["`+dir+`/*.yaml"]`, `    metrics: {receivers: [prometheus], processors: [modelplane_mapping], exporters: [debug]}`)
	rule := relabels(jobs(t, convert(t, doc), "prometheus")[0])[0].(map[string]any)
	assert.Equal(t, "(?:nv_inference_queue_duration_us)(?:_bucket|_sum|_count|_total|_created)?|modelplane_.*|target_info", rule["regex"])
}

func TestBadProcessorConfigNamesTheProcessor(t *testing.T) {
	doc := oneReceiver(`  modelplane_mapping/x: {scrape_filter: true, builtin: [no-such-mapping]}`, `    metrics: {receivers: [prometheus], processors: [modelplane_mapping/x], exporters: [debug]}`)
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &raw))
	err := NewFactory().Create(confmap.ConverterSettings{}).Convert(context.Background(), confmap.NewFromStringMap(raw))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "processors::modelplane_mapping/x")
	assert.Contains(t, err.Error(), "no-such-mapping")
}

// TestSameSeriesWithAndWithoutTheFilter scrapes the busy node's pages with the Prometheus
// receiver twice, once with the keep rule the built-ins give, and maps both: the filter must
// change nothing the mapping processor emits, while the receiver builds far fewer points.
// vLLM and SGLang answer the receiver in OpenMetrics (counters' families without `_total`,
// `_created` in the family), so the rule must hold for that format as well as for the text one.
func TestSameSeriesWithAndWithoutTheFilter(t *testing.T) {
	scrapetest.InBothFormats(t, scrapetest.Fleet(2, 2), sameSeriesWithAndWithoutTheFilter)
}

func sameSeriesWithAndWithoutTheFilter(t *testing.T, fleet []scrapetest.Target) {
	ctx := context.Background()
	names, on, err := modelplanemapping.ScrapeSources(confmap.NewFromStringMap(map[string]any{"scrape_filter": true}), nil)
	require.NoError(t, err)
	require.True(t, on)
	all, err := scrapetest.Scrape(ctx, fleet)
	require.NoError(t, err)
	kept, err := scrapetest.Scrape(ctx, fleet, KeepRule(names))
	require.NoError(t, err)
	t.Logf("points built by the receiver: %d without the filter, %d with it", all.DataPointCount(), kept.DataPointCount())
	assert.Less(t, kept.DataPointCount()*2, all.DataPointCount(), "the filter should drop most of the page")

	mapped := func(in pmetric.Metrics) pmetric.Metrics {
		f := modelplanemapping.NewFactory()
		sink := new(consumertest.MetricsSink)
		p, err := f.CreateMetrics(ctx, processortest.NewNopSettings(component.MustNewType("modelplane_mapping")), f.CreateDefaultConfig(), sink)
		require.NoError(t, err)
		require.NoError(t, p.Start(ctx, nil))
		defer func() { require.NoError(t, p.Shutdown(ctx)) }()
		require.NoError(t, p.ConsumeMetrics(ctx, in))
		require.Len(t, sink.AllMetrics(), 1)
		return sink.AllMetrics()[0]
	}
	want, got := mapped(all), mapped(kept)
	require.Positive(t, want.DataPointCount())
	// Two scrapes of counters that advance per scrape, from engines on new ports: compare
	// the series (name, type, unit, resource and point attributes), not values or ports.
	assert.Equal(t, series(want), series(got))
	// The keep rule keeps `_created`, which OpenMetrics makes the counters' start times.
	wantStarts, gotStarts := sumStarts(want), sumStarts(got)
	assert.Equal(t, wantStarts, gotStarts)
	if slices.ContainsFunc(fleet, func(t scrapetest.Target) bool { return t.OpenMetrics }) {
		assert.Contains(t, slices.Collect(maps.Values(gotStarts)), true, "OpenMetrics gives start times")
	}
}

// sumStarts says, for every point of every sum, whether it has a start time.
func sumStarts(md pmetric.Metrics) map[string]bool {
	out := map[string]bool{}
	points.WalkNumbers(md, func(res pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
		if m.Type() == pmetric.MetricTypeSum {
			raw := res.AsRaw()
			delete(raw, "service.instance.id")
			out[fmt.Sprintf("%s %v %v", m.Name(), raw, dp.Attributes().AsRaw())] = dp.StartTimestamp() != 0
		}
	})
	return out
}

// series lists every point of md as one sorted line: metric name, type, unit, and the
// resource (without service.instance.id, which holds the port) and point attributes.
func series(md pmetric.Metrics) []string {
	var out []string
	attrs := func(m pcommon.Map) map[string]any {
		raw := m.AsRaw()
		delete(raw, "service.instance.id")
		return raw
	}
	points.Walk(md, func(res pcommon.Map, m pmetric.Metric, p pcommon.Map) {
		out = append(out, fmt.Sprintf("%s %s [%s] %v %v", m.Name(), m.Type(), m.Unit(), attrs(res), attrs(p)))
	})
	sort.Strings(out)
	return out
}

// FuzzKeepRule: for any source names, the keep rule compiles as Prometheus compiles it
// (anchored), keeps every name in every exposition form, and keeps no name it was not given
// (apart from modelplane_* and target_info).
func FuzzKeepRule(f *testing.F) {
	f.Add("vllm:num_requests_waiting", "DCGM_FI_DEV_FB_USED")
	f.Add("a.b+c*(d)|e", "x_total")
	f.Add("weird[name]", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		var names []string
		for _, n := range []string{a, b} {
			if n != "" && utf8.ValidString(n) && !strings.ContainsAny(n, "\n\x00") {
				names = append(names, n)
			}
		}
		re := KeepMatcher(names)
		for _, n := range names {
			if strings.Contains(n, "*") { // a keep_sources pattern: * matches any run
				assert.True(t, re.MatchString(strings.ReplaceAll(n, "*", "x:y")), "pattern %q", n)
				continue
			}
			base := strings.TrimSuffix(n, "_total")
			for _, form := range []string{n, base + "_bucket", base + "_sum", base + "_count", base + "_total", base + "_created"} {
				assert.True(t, re.MatchString(form), "should keep %q (from %q)", form, n)
			}
			other := n + "\x01"
			if !strings.HasPrefix(other, "modelplane_") && !slices.Contains(names, other) {
				assert.False(t, re.MatchString(other), "should drop %q", other)
			}
		}
	})
}

// TestKeepRuleShareOfSharedPages: how many sample lines of each shared page the built-ins'
// keep rule keeps, and how many lines an 8x8 fleet's scrape round holds; the figures
// docs/benchmarks.md quotes (`go test -run TestKeepRuleShareOfSharedPages -v ./processor/modelplanemapping/scrapefilter/`).
func TestKeepRuleShareOfSharedPages(t *testing.T) {
	names, on, err := modelplanemapping.ScrapeSources(confmap.NewFromStringMap(map[string]any{"scrape_filter": true}), nil)
	require.NoError(t, err)
	require.True(t, on)
	re := KeepMatcher(names)
	type share struct{ kept, samples int }
	shares := map[string]share{}
	for _, page := range []string{"vllm", "sglang", "gateway-genai", "epp", "dcgm-exporter"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "exposition", page+".prom"))
		require.NoError(t, err)
		var s share
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || line[0] == '#' {
				continue
			}
			s.samples++
			if re.Match(metricName([]byte(line))) {
				s.kept++
			}
		}
		t.Logf("%s: keeps %d of %d sample lines", page, s.kept, s.samples)
		shares[page+".prom"] = s
	}
	assert.Equal(t, map[string]share{
		"vllm.prom": {185, 411}, "sglang.prom": {220, 334}, "gateway-genai.prom": {444, 444},
		"epp.prom": {40, 1154}, "dcgm-exporter.prom": {14, 49},
	}, shares, "docs/benchmarks.md quotes these")
	total := 0
	for _, target := range scrapetest.Fleet(8, 8) {
		total += shares[target.File].samples
	}
	t.Logf("an 8x8 round: %d sample lines, %d of them the endpoint picker's", total, shares["epp.prom"].samples)
	assert.Equal(t, 4774, total)
}
