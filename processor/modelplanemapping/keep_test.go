// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

// keep_sources lets chosen source series go on as they came, beside the modelplane_* series
// the mappings make of them; the rest is dropped as before.
func TestKeepSources(t *testing.T) {
	in, err := scrapetest.Scrape(context.Background(), []scrapetest.Target{
		{Job: "vllm", File: "vllm.prom"}, {Job: "dcgm-exporter", File: "dcgm-exporter.prom"},
	})
	require.NoError(t, err)
	cfg := createDefaultConfig()
	cfg.KeepSources = []string{"DCGM_FI_*", "vllm:num_requests_*", "vllm:e2e_request_latency_seconds"}
	require.NoError(t, cfg.Validate())
	out := runOnce(t, cfg, in)

	names := map[string]int{}
	rms := out.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			for k := 0; k < sms.At(j).Metrics().Len(); k++ {
				names[sms.At(j).Metrics().At(k).Name()]++
			}
		}
	}
	for _, both := range []string{
		"DCGM_FI_DEV_GPU_TEMP", "modelplane_gpu_temperature_celsius",
		"DCGM_FI_DEV_FB_USED", "modelplane_gpu_memory_used_bytes",
		"vllm:num_requests_waiting", "modelplane_requests_waiting",
		"vllm:e2e_request_latency_seconds", "modelplane_request_duration_seconds",
	} {
		assert.Positive(t, names[both], both)
	}
	assert.Zero(t, names["vllm:prompt_tokens_total"]+names["vllm:prompt_tokens"], "not kept")
	assert.Zero(t, names["process_open_fds"], "not kept")

	// The kept series are as the scrape made them: a GPU's temperature in C under its name.
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			for k := 0; k < sms.At(j).Metrics().Len(); k++ {
				if m := sms.At(j).Metrics().At(k); m.Name() == "DCGM_FI_DEV_FB_USED" {
					v := m.Gauge().DataPoints().At(0).DoubleValue()
					assert.Less(t, v, 1e6, "MiB, not converted")
				}
			}
		}
	}
}

func TestKeepSourcesNamesSomething(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.KeepSources = []string{"DCGM_FI_*", "*"}
	assert.EqualError(t, cfg.Validate(), `keep_sources[1]: "*" names no metric; give a name or a prefix, such as DCGM_FI_*`)
}
