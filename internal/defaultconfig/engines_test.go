// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

// staticConfigs returns the static_configs of each scrape job of the default as lookup gives
// the variables.
func staticConfigs(t *testing.T, lookup func(string) (string, bool)) map[string]any {
	t.Helper()
	r, err := retrieveDefault(lookup)
	require.NoError(t, err)
	raw, err := r.AsRaw()
	require.NoError(t, err)
	jobs, _ := confmap.NewFromStringMap(raw.(map[string]any)).Get("receivers::node_scrape::config::scrape_configs").([]any)
	out := map[string]any{}
	for _, j := range jobs {
		job := j.(map[string]any)
		out[job["job_name"].(string)] = job["static_configs"]
	}
	return out
}

func lookupOf(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func entry(target, engine, replica string) map[string]any {
	return map[string]any{"targets": []any{target}, "labels": map[string]any{"engine": engine, "replica": replica}}
}

// One target per variable: the default's entry, with the target its variable names, or, where
// it is unset, read from it as the default writes it.
func TestOneEngineEach(t *testing.T) {
	got := staticConfigs(t, lookupOf(map[string]string{"MODELPLANE_VLLM_TARGET": "10.0.0.1:8000"}))
	assert.Equal(t, []any{entry("10.0.0.1:8000", "vllm", "vllm")}, got["vllm"])
	assert.Equal(t, []any{entry("${env:MODELPLANE_SGLANG_TARGET:-127.0.0.1:30000}", "sglang", "sglang")}, got["sglang"])
}

// Several: an entry each, with a replica of its own, named after the port, or after the whole
// target where ports repeat.
func TestSeveralEngines(t *testing.T) {
	got := staticConfigs(t, lookupOf(map[string]string{
		"MODELPLANE_VLLM_TARGET":   "127.0.0.1:8000, 127.0.0.1:8001,127.0.0.1:8002",
		"MODELPLANE_SGLANG_TARGET": "10.0.0.1:30000,10.0.0.2:30000",
	}))
	assert.Equal(t, []any{
		entry("127.0.0.1:8000", "vllm", "vllm-8000"),
		entry("127.0.0.1:8001", "vllm", "vllm-8001"),
		entry("127.0.0.1:8002", "vllm", "vllm-8002"),
	}, got["vllm"])
	assert.Equal(t, []any{
		entry("10.0.0.1:30000", "sglang", "sglang-10.0.0.1:30000"),
		entry("10.0.0.2:30000", "sglang", "sglang-10.0.0.2:30000"),
	}, got["sglang"])
	assert.Len(t, got["dcgm-exporter"], 1)
}

func TestTargetLists(t *testing.T) {
	assert.NoError(t, targets("127.0.0.1:8000,127.0.0.1:8001"))
	assert.NoError(t, targets("[::1]:8000, [::1]:8001"))
	for value, want := range map[string]string{
		"127.0.0.1:8000,http://127.0.0.1:8001": `"http://127.0.0.1:8001", one of the targets listed, is not host:port, such as 127.0.0.1:8000 (no scheme, no path)`,
		"127.0.0.1:8000,":                      `"", one of the targets listed, is not host:port, such as 127.0.0.1:8000 (no scheme, no path)`,
		"127.0.0.1:8000;127.0.0.1:8001":        `not host:port, such as 127.0.0.1:8000 (no scheme, no path); several are separated by commas`,
		"127.0.0.1:8000,127.0.0.1:8000":        `"127.0.0.1:8000" is listed twice`,
	} {
		assert.EqualError(t, targets(value), want, value)
	}
	// The dcgm-exporter's variable names one: the GPU receiver defers to it.
	assert.EqualError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_DCGM_EXPORTER_TARGET": "127.0.0.1:9400,127.0.0.1:9401"})),
		`MODELPLANE_DCGM_EXPORTER_TARGET="127.0.0.1:9400,127.0.0.1:9401": not host:port, such as 127.0.0.1:8000 (no scheme, no path)`)
}

// FuzzTargetLists: whatever a variable holds, checking it never panics, and a list it
// accepts becomes one entry per target, each scraped once under a replica of its own.
func FuzzTargetLists(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8000,127.0.0.1:8001", "[::1]:8000, [::1]:8001", "a:1,b:1,c:2", "127.0.0.1:8000,", ",", "a:08000,a:8000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if targets(s) != nil || len(splitTargets(s)) < 2 {
			return
		}
		list := splitTargets(s)
		entries, ok := staticConfigs(t, lookupOf(map[string]string{"MODELPLANE_VLLM_TARGET": s}))["vllm"].([]any)
		require.True(t, ok)
		require.Len(t, entries, len(list))
		replicas := map[any]bool{}
		for i, e := range entries {
			e := e.(map[string]any)
			assert.Equal(t, []any{list[i]}, e["targets"])
			replica := e["labels"].(map[string]any)["replica"]
			assert.False(t, replicas[replica], "replica %v given twice for %q", replica, s)
			replicas[replica] = true
		}
	})
}
