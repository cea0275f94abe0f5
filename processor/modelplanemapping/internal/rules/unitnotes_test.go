package rules

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/builtin"
	"github.com/modelplaneai/otelcol-modelplane/internal/metricmapping"
)

// Each way the names and fromUnit of an entry disagree, with the exact note; entries that
// agree, or whose names say no unit, get none.
func TestUnitNotes(t *testing.T) {
	m := metricmapping.MetricMapping{Source: "mappings/engine.yaml", Name: "my-engine", Metrics: []metricmapping.Entry{
		{From: "sglang:kv_transfer_latency_ms", To: "modelplane_request_kv_transfer_seconds"},
		{From: "nv_inference_request_duration_us", To: "modelplane_request_duration_seconds", FromUnit: "Milliseconds"},
		{From: "vllm:e2e_request_latency_seconds", To: "modelplane_request_duration_seconds", FromUnit: "Milliseconds"},
		{From: "DCGM_FI_DEV_FB_USED", To: "modelplane_gpu_memory_used_seconds", FromUnit: "Mebibytes"},
		{From: "cache_size_bytes", To: "modelplane_cache_seconds"},
		// These agree, or say nothing.
		{From: "sglang:kv_transfer_latency_ms", To: "modelplane_kv_seconds", FromUnit: "Milliseconds"},
		{From: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", To: "modelplane_energy_joules_total", FromUnit: "Millijoules"},
		{From: "my_latency_ms", To: "modelplane_latency_count", Part: metricmapping.PartCount},
		{From: "gpu_cache_usage_perc", To: "modelplane_kv_cache_utilization_ratio"},
		{From: "queue_ms", To: "modelplane_queue"},
	}}
	const at = `mappings/engine.yaml: MetricMapping "my-engine" `
	assert.Equal(t, []string{
		at + `metrics[0]: "sglang:kv_transfer_latency_ms" is in milliseconds by its name and "modelplane_request_kv_transfer_seconds" in seconds: without fromUnit: Milliseconds its values stay in milliseconds`,
		at + `metrics[1]: "nv_inference_request_duration_us" is in microseconds by its name, but fromUnit is Milliseconds`,
		at + `metrics[2]: "vllm:e2e_request_latency_seconds" is in seconds by its name already, but fromUnit: Milliseconds scales its values as if they were in milliseconds`,
		at + `metrics[3]: fromUnit: Mebibytes converts to bytes, but "modelplane_gpu_memory_used_seconds" is in seconds by its name`,
		at + `metrics[4]: "cache_size_bytes" is in bytes by its name and "modelplane_cache_seconds" in seconds`,
	}, UnitNotes([]metricmapping.MetricMapping{m}))
}

// The built-in catalog, and Modelplane's own mappings, give no note: a collector on the
// embedded default starts without one.
func TestUnitNotesBuiltins(t *testing.T) {
	c, err := builtin.Load()
	require.NoError(t, err)
	assert.Empty(t, UnitNotes(c.Mappings))
	anchor, err := os.ReadFile("../../../../testdata/anchor/modelplane-builtins.yaml")
	require.NoError(t, err)
	res := metricmapping.Decode("anchor", anchor)
	require.Empty(t, res.Errors)
	assert.Empty(t, UnitNotes(res.Mappings))
}
