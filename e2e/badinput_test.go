// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// An engine serving garbage, an enormous label, duplicate series or NaN fails at most its
// own scrape; the other targets keep flowing.
func TestBadInputFailsOnlyItsTarget(t *testing.T) {
	dir := t.TempDir()
	page := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	huge := strings.Repeat("x", 200_000)
	bad := map[string]string{
		"garbage":   page("garbage.prom", "<html>this is not an exposition {{{\n\x00\x01 ]]]\n"),
		"huge":      page("huge.prom", "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\""+huge+"\"} 1\n"),
		"duplicate": page("dup.prom", "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"a\"} 1\nvllm:num_requests_waiting{model_name=\"a\"} 2\n"),
		"nan":       page("nan.prom", "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"nan\"} NaN\n"),
	}
	prom := startPrometheus(t)
	good := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	engines := []*engine{good}
	for name, p := range bad {
		engines = append(engines, startEngine(t, "bad", p, map[string]string{"deployment": name, "replica": name + "-0", "engine": "vllm"}))
	}
	col := startCollector(t, collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
	eventually(t, "the good engine's series", func() bool {
		return len(prom.query(t, `modelplane_requests_waiting{replica="llama-0"}`)) == 1
	})
	time.Sleep(5 * time.Second)
	s := prom.query(t, `count_over_time(modelplane_requests_waiting{replica="llama-0"}[4s])`)
	require.Len(t, s, 1)
	assert.GreaterOrEqual(t, s[0].Value, 2.0, "the good target keeps flowing")

	nan := prom.query(t, `modelplane_requests_waiting{replica="nan-0"}`)
	require.Len(t, nan, 1, "a NaN gauge is a value like any other")
	assert.True(t, math.IsNaN(nan[0].Value))
	assert.Empty(t, prom.query(t, `modelplane_requests_waiting{replica="garbage-0"}`))
	// The collector keeps running and says which target failed.
	assert.Nil(t, col.cmd.ProcessState)
	t.Logf("huge label series: %d; duplicate-series target: %d series",
		len(prom.query(t, `modelplane_requests_waiting{replica="huge-0"}`)), len(prom.query(t, `modelplane_requests_waiting{replica="duplicate-0"}`)))
}

// A target with a runaway page fails its own scrape under the limits the embedded default
// (and the chart and host config) set, while the other targets keep flowing: one with more
// series of a mapped metric than sample_limit (a LoRA adapter per label value, say), one
// larger than body_size_limit (a large cluster's kube-state-metrics, annotated for
// scraping). Without the limits such pages were read whole: 164,400 series of a mapped
// metric (16 MB) took the collector to a 1.1 GB peak RSS and a 244 MB page of unmapped
// series to 2.3 GB, where the chart's memory limit is 512 MiB, and every target of the
// node goes with the collector (docs/reliability.md).
func TestRunawayTargetFailsOnlyItself(t *testing.T) {
	flooded, good := startEngine(t, "vllm", floodPage(t, 25_000), nil), startEngine(t, "vllm", "vllm.prom", nil)

	var giant bytes.Buffer
	giant.WriteString("# TYPE kube_pod_info gauge\n")
	for i := 0; giant.Len() <= 17<<20; i++ {
		fmt.Fprintf(&giant, "kube_pod_info{namespace=\"team-%d\",pod=\"worker-%d\",node=\"gpu-node-%d\"} 1\n", i%300, i, i%500)
	}
	giantServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(giant.Bytes())
	}))
	t.Cleanup(giantServer.Close)
	giantAddr := strings.TrimPrefix(giantServer.URL, "http://")

	gpus := startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", nil)
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_VLLM_TARGET="+flooded.Addr+","+good.Addr,
		"MODELPLANE_SGLANG_TARGET="+giantAddr, "MODELPLANE_DCGM_EXPORTER_TARGET="+gpus.Addr,
		"MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint, "MODELPLANE_TELEMETRY_ENDPOINT="+telemetry,
		"MODELPLANE_SCRAPE_INTERVAL=1s"), collectorBin)

	failed := func(reason, addr string) bool {
		for _, line := range strings.Split(col.out.String(), "\n") {
			if strings.Contains(line, reason) && strings.Contains(line, addr) {
				return true
			}
		}
		return false
	}
	eventually(t, "both runaway targets refused, each named in the log", func() bool {
		return failed("sample limit exceeded", flooded.Addr) && failed("body size limit exceeded", giantAddr)
	})
	_, goodPort, _ := strings.Cut(good.Addr, ":")
	_, floodPort, _ := strings.Cut(flooded.Addr, ":")
	var lines []string
	eventually(t, "the other targets' series", func() bool {
		lines = servedLines(t, endpoint)
		return count(lines, "modelplane_requests_waiting{", `replica="vllm-`+goodPort+`"`) == 1 && count(lines, "modelplane_gpu_memory_used_bytes{") > 0
	})
	assert.Zero(t, count(lines, `replica="vllm-`+floodPort+`"`), "none of the flooding target's series")
	assert.Zero(t, count(lines, `engine="sglang"`), "none of the giant page's")
	assert.False(t, failed("limit exceeded", good.Addr) || failed("limit exceeded", gpus.Addr), "the others are within the limits")
	// up is dropped with everything that is not modelplane_*; the failed scrapes are counted
	// by job in the collector's own metrics, the only ones the dcgm-exporter's job has none of.
	own := servedLines(t, telemetry)
	assert.Positive(t, count(own, "otelcol_processor_modelplane_mapping_scrapes_failed{", `scrape_job="vllm"`), "failed scrapes of the vllm job counted")
	assert.Positive(t, count(own, "otelcol_processor_modelplane_mapping_scrapes_failed{", `scrape_job="sglang"`), "and of the sglang job")
	assert.Zero(t, count(own, "otelcol_processor_modelplane_mapping_scrapes_failed{", `scrape_job="dcgm-exporter"`))
	if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", col.cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmHWM") {
				t.Logf("collector peak RSS: %s", strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")))
			}
		}
	}
}

// floodPage writes a vLLM page with n series of a mapped metric, one per LoRA adapter say,
// and returns its path.
func floodPage(t *testing.T, n int) string {
	t.Helper()
	var page strings.Builder
	page.WriteString("# TYPE vllm:num_requests_waiting gauge\n")
	for i := range n {
		fmt.Fprintf(&page, "vllm:num_requests_waiting{model_name=\"adapter-%d\",engine=\"0\"} 1\n", i)
	}
	path := filepath.Join(t.TempDir(), "flood.prom")
	require.NoError(t, os.WriteFile(path, []byte(page.String()), 0o600))
	return path
}
