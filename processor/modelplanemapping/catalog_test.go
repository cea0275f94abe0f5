// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

// What the built-in catalog makes of each shared page, as the embedded default runs it: the
// modelplane_* names per job. It is the catalog's coverage, engine by engine, and changes
// only with the catalog (or the pages).
func TestCatalogOnTheSharedPages(t *testing.T) {
	in, err := scrapetest.Scrape(context.Background(), scrapetest.Fleet(2, 2))
	require.NoError(t, err)
	out := runOnce(t, createDefaultConfig(), in)

	got := map[string][]string{}
	for i := range out.ResourceMetrics().Len() {
		rm := out.ResourceMetrics().At(i)
		job, ok := rm.Resource().Attributes().Get("service.name")
		require.True(t, ok)
		ms := rm.ScopeMetrics().At(0).Metrics()
		for j := range ms.Len() {
			if !slices.Contains(got[job.Str()], ms.At(j).Name()) {
				got[job.Str()] = append(got[job.Str()], ms.At(j).Name())
			}
		}
	}
	for _, names := range got {
		slices.Sort(names)
	}
	// Jobs are named after the page and the target's place in the fleet.
	assert.Equal(t, map[string][]string{
		"vllm-0": {
			"modelplane_kv_cache_utilization_ratio",
			"modelplane_prefix_cache_hits_total",
			"modelplane_prefix_cache_lookups_total",
			"modelplane_request_decode_seconds",
			"modelplane_request_duration_seconds",
			"modelplane_request_input_tokens",
			"modelplane_request_output_tokens",
			"modelplane_request_prefill_seconds",
			"modelplane_request_queue_seconds",
			"modelplane_request_ttft_seconds",
			"modelplane_requests_preempted_total",
			"modelplane_requests_running",
			"modelplane_requests_waiting",
			"modelplane_responses_total",
			"modelplane_tokens_total",
		},
		"sglang-1": {
			"modelplane_kv_cache_utilization_ratio",
			"modelplane_prefix_cache_hits_total", // sglang:cached_tokens_total
			"modelplane_request_duration_seconds",
			"modelplane_request_input_tokens",
			"modelplane_request_output_tokens",
			"modelplane_request_queue_seconds",
			"modelplane_request_ttft_seconds",
			"modelplane_requests_preempted_total",
			"modelplane_requests_running",
			"modelplane_requests_waiting",
			"modelplane_tokens_total",
		},
		"gateway-2": {
			"modelplane_frontend_request_duration_seconds",
			"modelplane_frontend_tpot_seconds",
			"modelplane_frontend_ttft_seconds",
			"modelplane_tokens_total",
		},
		"picker-3": {
			"modelplane_route_decision_seconds",
			"modelplane_route_requests_total",
		},
		"dcgm-exporter-4": {
			"modelplane_energy_joules_total",
			"modelplane_gpu_compute_active_ratio",
			"modelplane_gpu_memory_bandwidth_ratio",
			"modelplane_gpu_memory_used_bytes",
			"modelplane_gpu_power_watts",
			"modelplane_gpu_temperature_celsius",
			"modelplane_gpu_tensor_active_ratio",
		},
	}, got)
}

// A NIM for LLMs page: the modelplane-nim mapping is off by default (its names carry no
// prefix), and with `builtin: [default, modelplane-nim]` it gives what modelplane-vllm gives
// for vLLM's own names, except what NIM does not publish.
func TestCatalogOnANIMPage(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("testdata", "pages", "nim-llm.prom"))
	require.NoError(t, err)
	nim := []scrapetest.Target{{Job: "nim", File: page, Labels: map[string]string{
		"namespace": "inference", "deployment": "llama", "replica": "llama-0", "engine": "nim", "role": "unified",
	}}}
	scrapetest.InBothFormats(t, nim, func(t *testing.T, nim []scrapetest.Target) {
		in, err := scrapetest.Scrape(context.Background(), nim)
		require.NoError(t, err)

		untouched := pmetric.NewMetrics()
		in.CopyTo(untouched) // the processor maps in place
		assert.Zero(t, runOnce(t, createDefaultConfig(), untouched).DataPointCount(), "off by default")

		cfg := createDefaultConfig()
		cfg.Builtin = []string{"default", "modelplane-nim"}
		require.NoError(t, cfg.Validate())
		out := runOnce(t, cfg, in)
		require.Equal(t, 1, out.ResourceMetrics().Len())
		rm := out.ResourceMetrics().At(0)
		engine, _ := rm.Resource().Attributes().Get("engine")
		assert.Equal(t, "nim", engine.Str())
		// A rename does not merge: each source stays a metric of its own under the target's
		// name, as under the reference (the two token counters are two modelplane_tokens_total).
		got := map[string]pmetric.Metric{}
		all := map[string][]pmetric.Metric{}
		ms := rm.ScopeMetrics().At(0).Metrics()
		for i := range ms.Len() {
			got[ms.At(i).Name()] = ms.At(i)
			all[ms.At(i).Name()] = append(all[ms.At(i).Name()], ms.At(i))
		}
		assert.ElementsMatch(t, []string{
			"modelplane_kv_cache_utilization_ratio",
			"modelplane_request_duration_seconds",
			"modelplane_request_input_tokens",
			"modelplane_request_output_tokens",
			"modelplane_request_ttft_seconds",
			"modelplane_requests_running",
			"modelplane_requests_waiting",
			"modelplane_responses_total",
			"modelplane_tokens_total",
		}, slices.Collect(maps.Keys(got)))

		assert.Equal(t, 3.0, got["modelplane_requests_running"].Gauge().DataPoints().At(0).DoubleValue())
		assert.Equal(t, 0.4219, got["modelplane_kv_cache_utilization_ratio"].Gauge().DataPoints().At(0).DoubleValue())
		ttft := got["modelplane_request_ttft_seconds"].Histogram().DataPoints().At(0)
		assert.Equal(t, uint64(1800), ttft.Count())
		assert.Equal(t, "s", got["modelplane_request_ttft_seconds"].Unit())
		byAttr := func(name, key string) map[string]float64 {
			out := map[string]float64{}
			for _, m := range all[name] {
				dps := m.Sum().DataPoints()
				for i := range dps.Len() {
					v, _ := dps.At(i).Attributes().Get(key)
					out[v.Str()] = dps.At(i).DoubleValue()
				}
			}
			return out
		}
		assert.Equal(t, map[string]float64{"input": 1283744, "output": 402771}, byAttr("modelplane_tokens_total", "direction"))
		assert.Equal(t, map[string]float64{"stop": 1512, "length": 288}, byAttr("modelplane_responses_total", "reason"))
		assert.Equal(t, "model_name", firstPointKeys(got["modelplane_requests_running"]), "NIM's own label stays")
	})

	// The scrape filter keeps NIM's lines only where the mapping is selected.
	filtered := func(builtin any) []string {
		names, on, err := ScrapeSources(confmap.NewFromStringMap(map[string]any{"scrape_filter": true, "builtin": builtin}), nil)
		require.NoError(t, err)
		require.True(t, on)
		return names
	}
	assert.NotContains(t, filtered([]any{"default"}), "num_requests_running")
	assert.Subset(t, filtered([]any{"default", "modelplane-nim"}), []string{"num_requests_running", "request_success_total", "vllm:num_requests_running"})
}

func firstPointKeys(m pmetric.Metric) string {
	var keys []string
	for k := range m.Gauge().DataPoints().At(0).Attributes().All() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}
