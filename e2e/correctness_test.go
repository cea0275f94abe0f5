// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

func vllmLabels(replica string) map[string]string {
	return map[string]string{"namespace": "inference", "deployment": "llama", "replica": replica, "engine": "vllm", "role": "decode", "node": "gpu-node-01"}
}

type fleet struct {
	prom    *prometheus
	engines []*engine
	mapDir  string
	col     *process
}

// startFleet runs two vLLM replicas, an SGLang, a dcgm-exporter and a "my engine" (the
// guide's example, with a millisecond histogram and awkward label values), a Prometheus,
// and the collector between them.
func startFleet(t *testing.T, scrapeFilter bool) *fleet {
	f := &fleet{prom: startPrometheus(t), mapDir: t.TempDir()}
	mapping, err := os.ReadFile("testdata/my-engine-mapping.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(f.mapDir, "my-engine.yaml"), mapping, 0o600))
	myEngine, err := filepath.Abs("testdata/my-engine.prom")
	require.NoError(t, err)
	f.engines = []*engine{
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0")),
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-1")),
		startEngine(t, "sglang", "sglang.prom", map[string]string{"namespace": "inference", "deployment": "qwen", "replica": "qwen-0", "engine": "sglang", "role": "unified", "node": "gpu-node-01"}),
		startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", map[string]string{"node": "gpu-node-01"}),
		startEngine(t, "my-engine", myEngine, map[string]string{"deployment": "mine", "replica": "mine-0", "engine": "my-engine"}),
	}
	f.col = startCollector(t, collectorSetup{Engines: f.engines, Prometheus: f.prom.addr, MappingDir: f.mapDir, Health: freeport.Addr(t), ScrapeFilter: scrapeFilter})
	eventually(t, "GPU, vLLM, SGLang and my-engine series in Prometheus", func() bool {
		return len(f.prom.query(t, "modelplane_gpu_memory_used_bytes")) == 2 &&
			len(f.prom.query(t, `modelplane_requests_waiting{engine="vllm"}`)) == 2 &&
			len(f.prom.query(t, `modelplane_requests_waiting{engine="sglang"}`)) == 1 &&
			len(f.prom.query(t, `modelplane_request_kv_transfer_seconds_bucket`)) > 0
	})
	return f
}

// The same checks with and without the scrape filter: dropping unmapped series at scrape
// time must not change what arrives.
func TestCorrectnessInPrometheus(t *testing.T) {
	for _, filter := range []bool{false, true} {
		t.Run(fmt.Sprintf("scrape_filter=%v", filter), func(t *testing.T) { checkCorrectness(t, startFleet(t, filter)) })
	}
}

func checkCorrectness(t *testing.T, f *fleet) {
	p := f.prom

	// Exact values: MiB times 1048576, as dcgm-exporter's page says.
	fb := p.query(t, `modelplane_gpu_memory_used_bytes{gpu="0"}`)
	require.Len(t, fb, 1)
	assert.Equal(t, 61245.0*1048576, fb[0].Value)
	assert.Equal(t, "e2e", fb[0].Labels["cluster"])
	assert.Equal(t, "gpu-node-01", fb[0].Labels["node"])
	assert.Equal(t, "ml-training", fb[0].Labels["namespace"], "the GPU's pod namespace")
	energy := p.query(t, `modelplane_energy_joules_total{gpu="1"}`)
	require.Len(t, energy, 1)
	assert.True(t, scrapedReading(t, f.engines[3], `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1"`, 1000, energy[0].Value),
		"energy %v J is no scraped mJ reading / 1000", energy[0].Value)

	// Identity: labels as the reference documents; replicas stay separate series.
	waiting := p.query(t, `modelplane_requests_waiting{engine="vllm"}`)
	require.Len(t, waiting, 2)
	var replicas []string
	for _, s := range waiting {
		replicas = append(replicas, s.Labels["replica"])
		for _, k := range []string{"cluster", "deployment", "replica", "engine", "role", "node"} {
			assert.NotEmpty(t, s.Labels[k], "label %s on %v", k, s.Labels)
		}
		want, _ := f.engines[0].e.Page().Value("vllm:num_requests_waiting{", 0)
		assert.Equal(t, want, s.Value)
	}
	sort.Strings(replicas)
	assert.Equal(t, []string{"llama-0", "llama-1"}, replicas)
	// vLLM's engine index, as the chart's scrape job keeps it; no series has an exported_ label.
	for _, s := range waiting {
		assert.Equal(t, "0", s.Labels["engine_index"], "%v", s.Labels)
	}
	for _, s := range p.query(t, `count by (__name__) ({__name__=~"modelplane_.+", exported_engine!=""})`) {
		t.Errorf("%s carries exported_engine", s.Labels["__name__"])
	}

	// Nothing but modelplane_* arrives.
	names := p.query(t, `count by (__name__) ({__name__=~".+"})`)
	require.NotEmpty(t, names)
	for _, s := range names {
		assert.True(t, strings.HasPrefix(s.Labels["__name__"], "modelplane_"), "not modelplane_*: %s", s.Labels["__name__"])
	}

	// Converted histogram bounds print the le labels of an engine that reports seconds.
	var les []string
	for _, s := range p.query(t, `modelplane_request_kv_transfer_seconds_bucket`) {
		les = append(les, s.Labels["le"])
	}
	sort.Strings(les)
	assert.Equal(t, []string{"+Inf", "0.001", "0.009", "0.025", "0.1"}, les)
	sum := p.query(t, `modelplane_request_kv_transfer_seconds_sum`)
	require.Len(t, sum, 1)
	// 250 ms on the first scrape: 0.25 s exactly, not 0.25000000000000006.
	assert.True(t, scrapedReading(t, f.engines[4], `my_engine_kv_transfer_ms_sum{`, 1000, sum[0].Value),
		"KV transfer sum %v s is no scraped ms reading / 1000", sum[0].Value)

	// Label values with quotes, backslashes and non-ASCII survive.
	odd := p.query(t, `modelplane_requests_waiting{engine="my-engine"}`)
	require.Len(t, odd, 1)
	assert.Equal(t, "we\"ird\\name→ü", odd[0].Labels["model_name"])
	assert.Equal(t, 4.0, odd[0].Value)
}

// scrapedReading reports whether got is, exactly, the engine's reading of the sample line that
// starts with prefix in one of the scrapes it has served, divided by div. Counters and
// histograms advance on every scrape, and how many scrapes Prometheus has stored by the time
// of the query depends on the machine's load.
func scrapedReading(t *testing.T, e *engine, prefix string, div, got float64) bool {
	t.Helper()
	page := e.e.Page()
	for r := 0; r <= e.e.Rounds(); r++ {
		v, ok := page.Value(prefix, r)
		require.True(t, ok, prefix)
		if got == v/div {
			return true
		}
	}
	return false
}

// A broken live update of a mapping file keeps the last good mappings flowing (and the
// built-ins), with one warning naming the file and the field.
func TestBrokenMappingUpdateKeepsFlowing(t *testing.T) {
	f := startFleet(t, false)
	path := filepath.Join(f.mapDir, "my-engine.yaml")
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	broken := strings.Replace(string(good), "fromUnit: Milliseconds", "fromUnit: Milisecond", 1)
	require.NoError(t, os.WriteFile(path, []byte(broken), 0o600))
	eventually(t, "the warning", func() bool {
		return strings.Contains(f.col.out.String(), `metrics[1].fromUnit: unknown unit \"Milisecond\"`)
	})
	assert.Equal(t, 1, strings.Count(f.col.out.String(), `unknown unit \"Milisecond\"`))
	assert.Contains(t, f.col.out.String(), path)
	// Fresh samples keep arriving for my-engine (last good mappings) and vLLM (built-ins).
	time.Sleep(2 * time.Second)
	for _, q := range []string{`modelplane_requests_waiting{engine="my-engine"}`, `modelplane_requests_waiting{engine="vllm"}`, `modelplane_request_kv_transfer_seconds_count`} {
		s := f.prom.query(t, "count_over_time("+q+"[2s])")
		require.NotEmpty(t, s, q)
		assert.Positive(t, s[0].Value, q)
	}
}

// A broken mapping file at start: the collector starts, the built-ins and the other files
// flow, and one warning names the file, the field and the value.
func TestBrokenMappingAtStart(t *testing.T) {
	prom := startPrometheus(t)
	mapDir := t.TempDir()
	good, err := os.ReadFile("testdata/my-engine-mapping.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(mapDir, "a-good.yaml"), good, 0o600))
	bad := filepath.Join(mapDir, "b-bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: bad}\nspec:\n  metrics:\n  - {from: x, to: requests_total}\n"), 0o600))
	// A file the collector cannot read (as a root-only file is to the standalone install's
	// user; this one fails for root too: the collector's own memory at offset 0).
	unreadable := filepath.Join(mapDir, "c-unreadable.yaml")
	require.NoError(t, os.Symlink("/proc/self/mem", unreadable))
	myEngine, err := filepath.Abs("testdata/my-engine.prom")
	require.NoError(t, err)
	engines := []*engine{
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0")),
		startEngine(t, "my-engine", myEngine, map[string]string{"deployment": "mine", "replica": "mine-0", "engine": "my-engine"}),
	}
	health := freeport.Addr(t)
	col := startCollector(t, collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: mapDir, Health: health})
	eventually(t, "built-in and good-file series", func() bool {
		return len(prom.query(t, `modelplane_requests_waiting{engine="vllm"}`)) == 1 &&
			len(prom.query(t, `modelplane_request_kv_transfer_seconds_count`)) == 1
	})
	assert.Equal(t, 1, strings.Count(col.out.String(), bad+`: MetricMapping \"bad\": line 6: metrics[0].to: \"requests_total\" does not match`))
	time.Sleep(2 * time.Second) // ten reloads
	out := col.out.String()
	assert.Equal(t, 1, strings.Count(out, unreadable+": read "+unreadable+": input/output error"), "said once")
	assert.NotContains(t, out, "panic")
	resp, err := http.Get("http://" + health)
	require.NoError(t, err, "the collector is still running")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// With the scrape filter on, a mapping file added while the collector runs reads a metric
// that no mapping read at start: the file provider has the collector load its configuration
// again, the keep rule is rebuilt and only the receivers restart, and the new series arrive
// without restarting the process; everything else keeps flowing.
func TestScrapeFilterFollowsNewMappings(t *testing.T) {
	f := startFleet(t, true)
	require.Empty(t, f.prom.query(t, "modelplane_e2e_open_fds"))
	addNewSourceMapping(t, f.mapDir)
	eventually(t, "the newly mapped series of both vLLM replicas", func() bool {
		return len(f.prom.query(t, `modelplane_e2e_open_fds{engine="vllm"}`)) == 2
	})
	out := f.col.out.String()
	assert.Equal(t, 1, strings.Count(out, "reloading the configuration to keep them"))
	assert.Equal(t, 1, strings.Count(out, "Config updated, performing partial receiver reload"))
	assert.Equal(t, 2, strings.Count(out, "Scrape filter on"), "one process: the keep rule built at start and rebuilt once")
	want, _ := f.engines[0].e.Page().Value("process_open_fds", 0)
	got := f.prom.query(t, `modelplane_e2e_open_fds{replica="llama-0"}`)
	require.Len(t, got, 1)
	assert.Equal(t, want, got[0].Value)
	// The rest keeps flowing across the reload.
	time.Sleep(2 * time.Second)
	for _, q := range []string{`modelplane_requests_waiting{engine="vllm"}`, `modelplane_gpu_memory_used_bytes`} {
		s := f.prom.query(t, "count_over_time("+q+"[2s])")
		require.NotEmpty(t, s, q)
		assert.Positive(t, s[0].Value, q)
	}
}

// A mapping update that needs the scrape filter rebuilt reloads the configuration, and the
// collector ends when a configuration it reloads does not load. So while the config file
// differs from what was loaded (here a misspelt key, as in an edit in progress), the
// collector does not reload: it runs on with what it has, and says why the new source
// waits. Once the file is as loaded again, the reload goes through.
func TestNoReloadOntoABrokenConfig(t *testing.T) {
	f := startFleet(t, true)
	var cfgPath string
	for _, a := range f.col.cmd.Args {
		if p, ok := strings.CutPrefix(a, "--config="); ok {
			cfgPath = p
		}
	}
	require.NotEmpty(t, cfgPath)
	cfg, err := os.ReadFile(cfgPath)
	require.NoError(t, err)
	broken := strings.Replace(string(cfg), "    target_info:", "    target_infos:", 1)
	require.NotEqual(t, string(cfg), broken)
	require.NoError(t, os.WriteFile(cfgPath, []byte(broken), 0o600))

	addNewSourceMapping(t, f.mapDir)
	eventually(t, "the word on the reload that did not happen", func() bool {
		return strings.Contains(f.col.out.String(), "the configuration file has changed since it was loaded")
	})
	// Still running, and the series it had keep arriving.
	time.Sleep(3 * time.Second)
	require.Nil(t, f.col.cmd.ProcessState)
	assert.NotContains(t, f.col.out.String(), "Config updated")
	for _, q := range []string{`modelplane_requests_waiting{engine="vllm"}`, `modelplane_gpu_memory_used_bytes`} {
		s := f.prom.query(t, "count_over_time("+q+"[2s])")
		require.NotEmpty(t, s, q)
		assert.Positive(t, s[0].Value, q)
	}
	assert.Empty(t, f.prom.query(t, "modelplane_e2e_open_fds"))

	// Mending the config file is enough: the new source arrives without a restart.
	require.NoError(t, os.WriteFile(cfgPath, cfg, 0o600))
	eventually(t, "the new source after the config was mended", func() bool {
		return len(f.prom.query(t, `modelplane_e2e_open_fds{engine="vllm"}`)) == 2
	})
	assert.Equal(t, 1, strings.Count(f.col.out.String(), "Config updated, performing partial receiver reload"))
}

// addNewSourceMapping writes a mapping that reads a metric no other mapping reads, so the
// scrape filter built at start drops it.
func addNewSourceMapping(t *testing.T, mapDir string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(mapDir, "new-source.yaml"), []byte(`apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: new-source
spec:
  metrics:
  - from: process_open_fds
    to: modelplane_e2e_open_fds
`), 0o600))
}
