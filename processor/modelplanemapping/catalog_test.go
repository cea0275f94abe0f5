package modelplanemapping

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/scrapetest"
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
