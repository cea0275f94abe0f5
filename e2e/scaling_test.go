// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// scaledPage is the recorded vLLM page with some gauge lines given other values, as a busier
// replica would report them.
func scaledPage(t *testing.T, values map[string]string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "testdata", "exposition", "vllm.prom"))
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		for prefix, v := range values {
			if strings.HasPrefix(l, prefix) {
				lines[i] = l[:strings.LastIndexByte(l, ' ')+1] + v
			}
		}
	}
	path := filepath.Join(t.TempDir(), "vllm-busy.prom")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600))
	return path
}

// byDeployment runs a query whose result is one series per deployment label.
func byDeployment(t *testing.T, p *prometheus, q string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range p.query(t, q) {
		out[s.Labels["deployment"]] = s.Value
	}
	return out
}

// The queries docs/scaling.md gives an autoscaler, run on what the collector wrote to a real
// Prometheus: queue length summed over a deployment's replicas (what a KEDA trigger reads),
// KV cache use at its fullest replica, time to first token at the 90th percentile; vLLM and
// SGLang alike. When a replica goes away its series end at once, so the sum drops to the
// replicas left at the next scrape instead of counting the gone one for five minutes.
func TestScalingQueries(t *testing.T) {
	prom := startPrometheus(t)
	busy := scaledPage(t, map[string]string{
		"vllm:num_requests_waiting{": "7.0",
		"vllm:kv_cache_usage_perc{":  "0.8125",
		"vllm:num_requests_running{": "31.0",
	})
	engines := []*engine{
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0")),
		startEngine(t, "vllm", busy, vllmLabels("llama-1")),
		startEngine(t, "sglang", "sglang.prom", map[string]string{"namespace": "inference", "deployment": "qwen", "replica": "qwen-0", "engine": "sglang", "role": "unified", "node": "gpu-node-01"}),
	}
	startCollector(t, collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t), ScrapeFilter: true})

	const queue = `sum by (namespace, deployment) (modelplane_requests_waiting)`
	eventually(t, "both deployments' queues", func() bool {
		q := byDeployment(t, prom, queue)
		return q["llama"] == 2+7 && q["qwen"] == 3
	})
	keda := prom.query(t, `sum(modelplane_requests_waiting{namespace="inference", deployment="llama"})`)
	require.Len(t, keda, 1)
	assert.Equal(t, 9.0, keda[0].Value, "the KEDA trigger's query")
	assert.Equal(t, map[string]float64{"llama": 0.8125, "qwen": 0.5222},
		byDeployment(t, prom, `max by (namespace, deployment) (modelplane_kv_cache_utilization_ratio)`), "the fullest replica's KV cache")

	const ttft = `histogram_quantile(0.9, sum by (namespace, deployment, le) (rate(modelplane_request_ttft_seconds_bucket[1m])))`
	eventually(t, "time to first token from rates over two scrapes or more", func() bool {
		p90 := byDeployment(t, prom, ttft)
		return len(p90) == 2 && p90["llama"] > 0 && p90["qwen"] > 0
	})
	for d, v := range byDeployment(t, prom, ttft) {
		assert.False(t, math.IsInf(v, 0) || math.IsNaN(v), "%s p90 TTFT %v", d, v)
		assert.Less(t, v, 60.0, "%s p90 TTFT %v s: within the engines' bucket bounds", d, v)
	}

	// llama-1 scaled away: its queue leaves the sum at once.
	require.NoError(t, engines[1].e.Stop())
	eventually(t, "the gone replica out of the sum", func() bool {
		return byDeployment(t, prom, queue)["llama"] == 2
	})
	assert.Equal(t, 0.094534, byDeployment(t, prom, `max by (namespace, deployment) (modelplane_kv_cache_utilization_ratio)`)["llama"])
	assert.Equal(t, 3.0, byDeployment(t, prom, queue)["qwen"], "the other deployment goes on")
}
