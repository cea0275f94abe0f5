// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// Each way the names and fromUnit of an entry disagree, with the exact note; entries that
// agree, or whose names say no unit, get none.
func TestNameNotes(t *testing.T) {
	m := metricmapping.MetricMapping{Source: "mappings/engine.yaml", Name: "my-engine", Metrics: []metricmapping.Entry{
		{From: "sglang:kv_transfer_latency_ms", To: "modelplane_request_kv_transfer_seconds"},
		{From: "nv_inference_request_duration_us", To: "modelplane_request_duration_seconds", FromUnit: "Milliseconds"},
		{From: "vllm:e2e_request_latency_seconds", To: "modelplane_request_duration_seconds", FromUnit: "Milliseconds"},
		{From: "DCGM_FI_DEV_FB_USED", To: "modelplane_gpu_memory_used_seconds", FromUnit: "Mebibytes"},
		{From: "cache_size_bytes", To: "modelplane_cache_seconds"},
		// These agree, or say nothing.
		{From: "sglang:kv_transfer_latency_ms", To: "modelplane_kv_seconds", FromUnit: "Milliseconds"},
		{From: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", To: "modelplane_energy_joules_total", FromUnit: "Millijoules"},
		{From: "my_latency_ms", To: "modelplane_latency_count_total", Part: metricmapping.PartCount},
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
	}, NameNotes([]metricmapping.MetricMapping{m}))
}

// The built-in catalog, and Modelplane's own mappings, give no note: a collector on the
// embedded default starts without one.
func TestNameNotesBuiltins(t *testing.T) {
	c, err := metricmapping.LoadBuiltin()
	require.NoError(t, err)
	assert.Empty(t, NameNotes(c.Mappings))
	anchor, err := os.ReadFile("../../../../testdata/anchor/modelplane-builtins.yaml")
	require.NoError(t, err)
	res := metricmapping.Decode("anchor", anchor)
	require.Empty(t, res.Errors)
	assert.Empty(t, NameNotes(res.Mappings))
}

// A target the Prometheus exporters serve under another name, each as preview showed the
// exporter serve it (modelplane_a_seconds_total, modelplane_b, modelplane_c_ratio,
// modelplane_d_bytes, modelplane_e_joules_total, modelplane_maxtok_count_total); names that
// say their unit and a counter's _total get no note.
func TestNameNotesServedNames(t *testing.T) {
	m := metricmapping.MetricMapping{Source: "m.yaml", Name: "n", Metrics: []metricmapping.Entry{
		{From: "vllm:request_params_n", To: "modelplane_a_total", FromUnit: "Milliseconds", Part: metricmapping.PartSum},
		{From: "vllm:request_params_max_tokens", To: "modelplane_b", FromUnit: "Percent"}, // a histogram, which its name does not say
		{From: "vllm:engine_sleep_state", To: "modelplane_c", FromUnit: "Percent"},
		{From: "vllm:num_requests_waiting_by_reason", To: "modelplane_d", FromUnit: "Mebibytes"},
		{From: "vllm:prompt_tokens_cached_total", To: "modelplane_e", FromUnit: "Millijoules"},
		{From: "vllm:request_params_max_tokens", To: "modelplane_maxtok_count", Part: metricmapping.PartCount},
		{From: "vllm:num_preemptions_total", To: "modelplane_preemptions"},
		// These are served as written.
		{From: "vllm:request_params_n", To: "modelplane_n_seconds_total", FromUnit: "Milliseconds", Part: metricmapping.PartSum},
		{From: "DCGM_FI_DEV_FB_USED", To: "modelplane_gpu_memory_used_bytes", FromUnit: "Mebibytes"},
		{From: "vllm:num_requests_waiting", To: "modelplane_requests_waiting"},
		{From: "vllm:prompt_tokens_total", To: "modelplane_tokens_total"},
	}}
	const at = `m.yaml: MetricMapping "n" `
	assert.Equal(t, []string{
		at + `metrics[0]: the Prometheus exporters serve "modelplane_a_total" as "modelplane_a_seconds_total" (fromUnit: Milliseconds gives seconds, which they add to the name): name it "modelplane_a_seconds_total" to find it under the same name everywhere`,
		at + `metrics[1]: the Prometheus exporters serve "modelplane_b" as "modelplane_b_ratio" if it is a gauge (fromUnit: Percent gives a ratio (unit 1), which they add to a gauge's name): name it "modelplane_b_ratio" to find it under the same name everywhere`,
		at + `metrics[2]: the Prometheus exporters serve "modelplane_c" as "modelplane_c_ratio" if it is a gauge (fromUnit: Percent gives a ratio (unit 1), which they add to a gauge's name): name it "modelplane_c_ratio" to find it under the same name everywhere`,
		at + `metrics[3]: the Prometheus exporters serve "modelplane_d" as "modelplane_d_bytes" (fromUnit: Mebibytes gives bytes, which they add to the name): name it "modelplane_d_bytes" to find it under the same name everywhere`,
		at + `metrics[4]: the Prometheus exporters serve "modelplane_e" as "modelplane_e_joules_total" (fromUnit: Millijoules gives joules, which they add to the name; "vllm:prompt_tokens_cached_total" is a counter by its name, to which they add _total): name it "modelplane_e_joules_total" to find it under the same name everywhere`,
		at + `metrics[5]: the Prometheus exporters serve "modelplane_maxtok_count" as "modelplane_maxtok_count_total" (part Count is a counter, to which they add _total): name it "modelplane_maxtok_count_total" to find it under the same name everywhere`,
		at + `metrics[6]: the Prometheus exporters serve "modelplane_preemptions" as "modelplane_preemptions_total" ("vllm:num_preemptions_total" is a counter by its name, to which they add _total): name it "modelplane_preemptions_total" to find it under the same name everywhere`,
	}, NameNotes([]metricmapping.MetricMapping{m}))
}
