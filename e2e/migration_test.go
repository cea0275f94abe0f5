// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// Moving from dcgm-exporter and vLLM dashboards: with keep_sources, both vocabularies arrive
// in Prometheus, the native series as the targets serve them and the modelplane_* ones, with
// the scrape filter on (widened by the patterns); what neither names is still dropped.
func TestKeepSourcesBesideModelplane(t *testing.T) {
	prom := startPrometheus(t)
	engines := []*engine{
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0")),
		startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", map[string]string{"node": "gpu-node-01"}),
	}
	startCollector(t, collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(),
		Health: freeport.Addr(t), ScrapeFilter: true, KeepSources: []string{"DCGM_FI_*", "vllm:*"}})
	eventually(t, "both vocabularies", func() bool {
		return len(prom.query(t, `{__name__="vllm:num_requests_waiting"}`)) == 1 &&
			len(prom.query(t, `modelplane_requests_waiting{replica="llama-0"}`)) == 1 &&
			len(prom.query(t, `DCGM_FI_DEV_GPU_TEMP`)) == 2 &&
			len(prom.query(t, `modelplane_gpu_temperature_celsius`)) == 2
	})
	// Each in its own unit: the native framebuffer in MiB, the mapped one in bytes.
	native := prom.query(t, `DCGM_FI_DEV_FB_USED{gpu="0"}`)
	mapped := prom.query(t, `modelplane_gpu_memory_used_bytes{gpu="0"}`)
	if assert.Len(t, native, 1) && assert.Len(t, mapped, 1) {
		assert.Equal(t, native[0].Value*1024*1024, mapped[0].Value)
	}
	assert.Empty(t, prom.query(t, `process_open_fds`), "neither mapped nor kept")
}
