// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/procstat"
)

// loadDuration is how long the load test scrapes; E2E_LOAD shortens it for a quick run.
func loadDuration() time.Duration {
	if s := os.Getenv("E2E_LOAD"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			return d
		}
	}
	return 5 * time.Minute
}

// largeFleet is 64 engine targets (vLLM and SGLang pages) and 8 GPUs (4 dcgm-exporter pages).
func largeFleet(t *testing.T) []*engine {
	var engines []*engine
	for i := 0; i < 64; i++ {
		file, kind := "vllm.prom", "vllm"
		if i%2 == 1 {
			file, kind = "sglang.prom", "sglang"
		}
		engines = append(engines, startEngine(t, kind, file, map[string]string{
			"namespace": "inference", "deployment": fmt.Sprintf("%s-%d", kind, i/8), "replica": fmt.Sprintf("r-%d", i),
			"engine": kind, "role": "unified", "node": "gpu-node-01",
		}))
	}
	for i := 0; i < 4; i++ {
		engines = append(engines, startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", map[string]string{"node": fmt.Sprintf("gpu-node-%02d", i)}))
	}
	return engines
}

// everySampleArrived stops the engines and waits until, for every engine target, Prometheus
// holds one modelplane_requests_running sample per scrape served.
func everySampleArrived(t *testing.T, prom *prometheus, engines []*engine) {
	for _, e := range engines {
		require.NoError(t, e.e.Stop())
	}
	want := map[string]int{}
	for _, e := range engines {
		if r := e.Labels["replica"]; r != "" {
			want[r] = e.e.Rounds()
		}
	}
	var got map[string]float64
	eventually(t, "every scraped sample in Prometheus", func() bool {
		got = map[string]float64{}
		for _, s := range prom.query(t, `count_over_time(modelplane_requests_running[30m])`) {
			got[s.Labels["replica"]] = s.Value
		}
		for r, n := range want {
			if got[r] != float64(n) {
				return false
			}
		}
		return true
	})
	for r, n := range want {
		assert.Equal(t, float64(n), got[r], r)
	}
}

// A large fleet with the backend down for two minutes: the collector's memory stays under
// its limit, and after recovery every sample arrives.
func TestLongOutageLargeFleet(t *testing.T) {
	prom := startPrometheus(t)
	engines := largeFleet(t)
	col := startCollector(t, collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t), Interval: "5s"})
	eventually(t, "first samples", func() bool { return len(prom.query(t, `modelplane_requests_running`)) == 64 })
	prom.stop(t)
	time.Sleep(outage())
	_, rss := processUsage(t, col.cmd.Process.Pid)
	prom.start(t)
	t.Logf("peak RSS after a %v outage with 64 engines and 8 GPUs: %.1f MiB (limit %d MiB)", outage(), float64(rss)/(1<<20), memoryLimitMiB)
	assert.Less(t, rss, int64(memoryLimitMiB)<<20)
	everySampleArrived(t, prom, engines)
}

// 64 engine targets and 8 GPUs scraped every 5 s for 5 minutes: every scraped sample
// arrives in Prometheus. CPU seconds and peak memory of the collector are logged for
// docs/reliability.md.
func TestLoad64EnginesAnd8GPUs(t *testing.T) {
	prom := startPrometheus(t)
	engines := largeFleet(t)
	setup := collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t), Interval: "5s"}
	col := startCollector(t, setup)
	time.Sleep(loadDuration())
	cpu, rss := processUsage(t, col.cmd.Process.Pid)
	t.Logf("collector after %v: %.2f CPU seconds, peak RSS %.1f MiB", loadDuration(), cpu, float64(rss)/(1<<20))

	everySampleArrived(t, prom, engines)
	gpus := prom.query(t, `count(count_over_time(modelplane_gpu_memory_used_bytes[30m]))`)
	require.Len(t, gpus, 1)
	assert.Equal(t, 8.0, gpus[0].Value, "8 GPUs")
}

// processUsage reads a process's CPU seconds and peak resident memory.
func processUsage(t *testing.T, pid int) (float64, int64) {
	cpu, rss, err := procstat.Read(pid)
	require.NoError(t, err)
	return cpu, rss
}
