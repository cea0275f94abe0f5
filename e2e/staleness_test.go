// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A replica scaled down or a node's dcgm-exporter gone: its modelplane_* series end at once
// in the backend, instead of answering queries with their last value for Prometheus's
// five-minute lookback. The Prometheus receiver marks every series of a target whose scrape
// fails as stale, and those markers must survive the mapping: renamed, converted (the GPU
// memory in MiB), split by identity (GPUs held by pods of two namespaces) and extracted
// (histogram parts).
func TestStoppedTargetEndsItsSeries(t *testing.T) {
	f := startFleet(t, true)
	gone, dcgm := f.engines[1], f.engines[3]
	require.Equal(t, "llama-1", gone.Labels["replica"])
	require.Equal(t, "dcgm-exporter", dcgm.Job)
	require.NotEmpty(t, f.prom.query(t, `modelplane_request_ttft_seconds_count{replica="llama-1"}`))
	gpuSeries := len(f.prom.query(t, `{__name__=~"modelplane_gpu_.+|modelplane_energy_joules_total"}`))
	require.Greater(t, gpuSeries, 8, "several GPU series per GPU before the stop")

	require.NoError(t, gone.e.Stop())
	require.NoError(t, dcgm.e.Stop())
	eventually(t, "no series of the stopped replica or of the GPUs", func() bool {
		return len(f.prom.query(t, `{replica="llama-1"}`)) == 0 &&
			len(f.prom.query(t, `{__name__=~"modelplane_gpu_.+|modelplane_energy_joules_total"}`)) == 0
	})
	// The rest of the fleet goes on.
	assert.Len(t, f.prom.query(t, `modelplane_requests_waiting{engine="vllm"}`), 1)
	assert.NotEmpty(t, f.prom.query(t, `modelplane_request_ttft_seconds_count{replica="llama-0"}`))
}

// The same on the embedded default's Prometheus endpoint, which a GPU host's Prometheus
// scrapes: every series of a stopped target leaves /metrics at once, also where one metric
// holds several of them (vLLM's responses by finish reason, five series).
func TestStoppedTargetLeavesTheEndpoint(t *testing.T) {
	d := startEmbeddedDefault(t, collectorBin)
	endpoint := d.endpoint
	var lines []string
	eventually(t, "vLLM, SGLang and GPU series on the endpoint", func() bool {
		lines = servedLines(t, endpoint)
		return count(lines, `modelplane_responses_total{`, `engine="vllm"`) == 5 &&
			count(lines, `modelplane_gpu_memory_used_bytes{`) == 2 &&
			count(lines, `modelplane_requests_waiting{`, `engine="sglang"`) == 1
	})

	require.NoError(t, d.vllm.e.Stop())
	require.NoError(t, d.dcgm.e.Stop())
	eventually(t, "no vLLM or GPU series on the endpoint", func() bool {
		lines = servedLines(t, endpoint)
		return count(lines, `engine="vllm"`) == 0 && count(lines, `modelplane_gpu_`) == 0 &&
			count(lines, `modelplane_energy_joules_total`) == 0
	})
	assert.Equal(t, 1, count(lines, `modelplane_requests_waiting{`, `engine="sglang"`), "SGLang goes on")
}

// servedLines are the sample lines of a Prometheus endpoint's page (none when it does not
// answer).
func servedLines(t *testing.T, endpoint string) []string {
	t.Helper()
	resp, err := http.Get("http://" + endpoint + "/metrics")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && line[0] != '#' {
			lines = append(lines, line)
		}
	}
	require.NoError(t, sc.Err())
	return lines
}

// count is how many lines contain every one of parts.
func count(lines []string, parts ...string) int {
	n := 0
	for _, l := range lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			n++
		}
	}
	return n
}

// A mapping edited while the collector runs: the series it no longer produces (a histogram
// renamed, a gauge given a label) end in the backend at once, where they answered beside
// their replacements for five minutes, and every other series goes on. Also when the edit
// reads a metric the scrape filter drops, so the collector reloads its configuration and
// restarts its receivers, while the mapping processor goes on.
func TestMappingReloadEndsTheSeriesItStops(t *testing.T) {
	for _, newSource := range []bool{false, true} {
		t.Run(fmt.Sprintf("collector_reload=%v", newSource), func(t *testing.T) { checkMappingEditEnds(t, newSource) })
	}
}

func checkMappingEditEnds(t *testing.T, newSource bool) {
	f := startFleet(t, true)
	const oldHistogram = `{__name__=~"modelplane_request_kv_transfer_seconds_.+"}`
	const oldGauge = `modelplane_requests_waiting{engine="my-engine",queue=""}`
	require.Len(t, f.prom.query(t, oldHistogram), 7, "5 buckets, _sum and _count")
	require.Len(t, f.prom.query(t, oldGauge), 1)
	vllm := len(f.prom.query(t, `{engine="vllm"}`))
	require.Positive(t, vllm)

	path := filepath.Join(f.mapDir, "my-engine.yaml")
	mapping, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := strings.Replace(string(mapping), "to: modelplane_request_kv_transfer_seconds", "to: modelplane_kv_transfer_seconds", 1)
	edited = strings.Replace(edited, "to: modelplane_requests_waiting\n", "to: modelplane_requests_waiting\n    labels:\n    - {name: queue, value: default}\n", 1)
	if newSource {
		edited += "  - from: process_open_fds\n    to: modelplane_e2e_open_fds\n"
	}
	require.NotEqual(t, string(mapping), edited)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))

	eventually(t, "the renamed and relabelled series, and none of the old ones", func() bool {
		return len(f.prom.query(t, `{__name__=~"modelplane_kv_transfer_seconds_.+"}`)) == 7 &&
			len(f.prom.query(t, `modelplane_requests_waiting{engine="my-engine",queue="default"}`)) == 1 &&
			len(f.prom.query(t, oldHistogram)) == 0 && len(f.prom.query(t, oldGauge)) == 0
	})
	if newSource {
		eventually(t, "the newly read metric of both vLLM replicas", func() bool {
			return len(f.prom.query(t, `modelplane_e2e_open_fds{engine="vllm"}`)) == 2
		})
		assert.Contains(t, f.col.out.String(), "Config updated, performing partial receiver reload")
		vllm += 2
	} else {
		assert.NotContains(t, f.col.out.String(), "Config updated")
	}
	assert.Len(t, f.prom.query(t, `{engine="vllm"}`), vllm, "the series of the other engines go on")
}
