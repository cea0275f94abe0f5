// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

func defaultWith(t *testing.T, kv map[string]string) *confmap.Conf {
	t.Helper()
	require.NoError(t, checkEnv(lookupOf(kv)))
	r, err := retrieveDefault(lookupOf(kv))
	require.NoError(t, err)
	raw, err := r.AsRaw()
	require.NoError(t, err)
	return confmap.NewFromStringMap(raw.(map[string]any))
}

func jobNames(conf *confmap.Conf) []string {
	var names []string
	jobs, _ := conf.Get("receivers::node_scrape::config::scrape_configs").([]any)
	for _, j := range jobs {
		names = append(names, j.(map[string]any)["job_name"].(string))
	}
	return names
}

// A target variable set to none leaves its job out; without a dcgm-exporter the GPU receiver
// defers to none, and with no job left the Prometheus receiver goes.
func TestNoneLeavesAJobOut(t *testing.T) {
	conf := defaultWith(t, nil)
	assert.Equal(t, []string{"vllm", "sglang", "dcgm-exporter"}, jobNames(conf))

	conf = defaultWith(t, map[string]string{"MODELPLANE_SGLANG_TARGET": "none"})
	assert.Equal(t, []string{"vllm", "dcgm-exporter"}, jobNames(conf))
	assert.Equal(t, "${env:MODELPLANE_DCGM_EXPORTER_TARGET:-127.0.0.1:9400}", conf.Get("receivers::dcgm::defer_to_exporter"))

	conf = defaultWith(t, map[string]string{"MODELPLANE_DCGM_EXPORTER_TARGET": "none", "MODELPLANE_VLLM_TARGET": "127.0.0.1:8000,127.0.0.1:8001"})
	assert.Equal(t, []string{"vllm", "sglang"}, jobNames(conf))
	assert.False(t, conf.IsSet("receivers::dcgm::defer_to_exporter"), "no dcgm-exporter to defer to")
	assert.Len(t, conf.Get("receivers::node_scrape::config::scrape_configs").([]any)[0].(map[string]any)["static_configs"], 2, "lists still spread")

	conf = defaultWith(t, map[string]string{"MODELPLANE_VLLM_TARGET": "none", "MODELPLANE_SGLANG_TARGET": "none", "MODELPLANE_DCGM_EXPORTER_TARGET": "none"})
	assert.False(t, conf.IsSet("receivers::node_scrape"))
	assert.Equal(t, []any{"dcgm"}, conf.Get("service::pipelines::metrics::receivers"))

	assert.EqualError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_SGLANG_TARGET": "None"})),
		`MODELPLANE_SGLANG_TARGET="None": not host:port, such as 127.0.0.1:8000 (no scheme, no path); several are separated by commas`)
}

// NIM's job runs only when MODELPLANE_NIM_TARGET names a target: it serves on vLLM's port, so
// a default one would scrape a vLLM's port for a page at /v1/metrics. Named, it reads
// /v1/metrics, and a list spreads into replicas as vLLM's does.
func TestNIMJobWhenAsked(t *testing.T) {
	assert.NotContains(t, jobNames(defaultWith(t, nil)), "nim")

	conf := defaultWith(t, map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8000", "MODELPLANE_VLLM_TARGET": "none"})
	assert.Equal(t, []string{"sglang", "nim", "dcgm-exporter"}, jobNames(conf))
	nim := conf.Get("receivers::node_scrape::config::scrape_configs").([]any)[1].(map[string]any)
	assert.Equal(t, "/v1/metrics", nim["metrics_path"])
	assert.Equal(t, []any{"default", "modelplane-nim"}, conf.Get("processors::modelplane_mapping::builtin"))

	conf = defaultWith(t, map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8000,127.0.0.1:8001", "MODELPLANE_VLLM_TARGET": "none"})
	nim = conf.Get("receivers::node_scrape::config::scrape_configs").([]any)[1].(map[string]any)
	require.Equal(t, "nim", nim["job_name"])
	statics := nim["static_configs"].([]any)
	require.Len(t, statics, 2)
	assert.Equal(t, "nim-8001", statics[1].(map[string]any)["labels"].(map[string]any)["replica"])

	assert.EqualError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_NIM_TARGET": "http://127.0.0.1:8000/v1/metrics"})),
		`MODELPLANE_NIM_TARGET="http://127.0.0.1:8000/v1/metrics": not host:port, such as 127.0.0.1:8000 (no scheme, no path); several are separated by commas`)
}

// NODE_NAME set but empty asks for no node label: the resource processor's node action goes,
// the cluster's stays. Unset, the node is the host's name.
func TestEmptyNodeNameNoNodeLabel(t *testing.T) {
	keys := func(conf *confmap.Conf) []string {
		var k []string
		for _, a := range conf.Get("processors::resource::attributes").([]any) {
			k = append(k, a.(map[string]any)["key"].(string))
		}
		return k
	}
	assert.Equal(t, []string{"cluster", "node"}, keys(defaultWith(t, nil)))
	assert.Equal(t, []string{"cluster", "node"}, keys(defaultWith(t, map[string]string{"NODE_NAME": "gpu-1"})))
	assert.Equal(t, []string{"cluster"}, keys(defaultWith(t, map[string]string{"NODE_NAME": ""})))
}

// With a target variable unset (vLLM's, SGLang's, the dcgm-exporter's), the default scrapes
// that target only where its page is served at its default address when the configuration
// is loaded; otherwise its job is left out as for none, and the GPU receiver, without an
// exporter to defer to, reads the GPUs. A variable that is set is used as it is, answering or
// not, and nothing is probed for it.
func TestAbsentTargetsLeftOut(t *testing.T) {
	var probed []string
	var mu sync.Mutex
	answering := func(addrs ...string) func(string) finding {
		return func(addr string) finding {
			mu.Lock()
			defer mu.Unlock()
			probed = append(probed, addr)
			if slices.Contains(addrs, addr) {
				return ownPage(addr)
			}
			return finding{why: "nothing listens there"}
		}
	}
	names := func(absent []absentTarget) (n []string) {
		for _, a := range absent {
			n = append(n, a.name+"@"+a.addr)
		}
		return n
	}

	// A vLLM host without SGLang or dcgm-exporter.
	lookup, moved, absent := placeProbedTargets(lookupOf(nil), answering("127.0.0.1:8000"))
	assert.ElementsMatch(t, []string{"127.0.0.1:8000", "127.0.0.1:30000", "127.0.0.1:9400"}, probed)
	assert.Empty(t, moved)
	assert.Equal(t, []string{"SGLang@127.0.0.1:30000", "dcgm-exporter@127.0.0.1:9400"}, names(absent))
	conf := resolved(t, lookup)
	assert.Equal(t, []string{"vllm"}, jobNames(conf))
	assert.Equal(t, []any{entry("127.0.0.1:8000", "vllm", "vllm")}, staticConfigs(t, lookup)["vllm"])
	assert.False(t, conf.IsSet("receivers::dcgm::defer_to_exporter"), "nothing to defer to")

	// Nothing answers (a container without the host's network): no job, no Prometheus receiver.
	probed = nil
	lookup, _, absent = placeProbedTargets(lookupOf(nil), answering())
	assert.Len(t, absent, 3)
	conf = resolved(t, lookup)
	assert.False(t, conf.IsSet("receivers::node_scrape"))
	assert.Equal(t, []any{"dcgm"}, conf.Get("service::pipelines::metrics::receivers"))

	probed = nil
	lookup, _, absent = placeProbedTargets(lookupOf(nil), answering("127.0.0.1:8000", "127.0.0.1:30000", "127.0.0.1:9400"))
	assert.Empty(t, absent)
	assert.Equal(t, []string{"vllm", "sglang", "dcgm-exporter"}, jobNames(resolved(t, lookup)))

	probed = nil
	lookup, _, absent = placeProbedTargets(lookupOf(map[string]string{
		"MODELPLANE_VLLM_TARGET": "10.0.0.1:8000", "MODELPLANE_SGLANG_TARGET": "none", dcgmExporterVariable: "10.0.0.7:9400",
	}), answering())
	assert.Empty(t, absent)
	assert.Empty(t, probed, "a variable that is set is not probed")
	assert.Equal(t, []string{"vllm", "dcgm-exporter"}, jobNames(resolved(t, lookup)))
}

// An engine's page at another engine's default address (an SGLang started with --port 8000,
// both variables unset) is scraped by its own job, labelled as that engine, and the job whose
// default it is has none. Before, the vLLM job read it, labelling its series engine=vllm.
// A page that is not the engine's (a port that accepts but does not answer yet, another
// program's page) leaves the job out, saying what was found.
func TestEngineFoundAtAnothersAddress(t *testing.T) {
	sglang := &probedTargets[1]
	at := func(pages map[string]finding) func(string) finding {
		return func(addr string) finding {
			if f, ok := pages[addr]; ok {
				return f
			}
			return finding{why: "nothing listens there"}
		}
	}

	lookup, moved, absent := placeProbedTargets(lookupOf(map[string]string{dcgmExporterVariable: none}),
		at(map[string]finding{"127.0.0.1:8000": {serves: sglang}}))
	require.Len(t, moved, 1)
	assert.Equal(t, "SGLang@127.0.0.1:8000 for vLLM", moved[0].found.name+"@"+moved[0].addr+" for "+moved[0].at.name)
	assert.Empty(t, absent, "the SGLang is scraped: its own default is not looked at")
	assert.Equal(t, []string{"sglang"}, jobNames(resolved(t, lookup)))
	assert.Equal(t, []any{entry("127.0.0.1:8000", "sglang", "sglang")}, staticConfigs(t, lookup)["sglang"])

	// With an SGLang at its own default too: both, each a replica of its own.
	lookup, _, absent = placeProbedTargets(lookupOf(map[string]string{dcgmExporterVariable: none}),
		at(map[string]finding{"127.0.0.1:8000": {serves: sglang}, "127.0.0.1:30000": {serves: sglang}}))
	assert.Empty(t, absent)
	assert.Equal(t, []any{entry("127.0.0.1:30000", "sglang", "sglang-30000"), entry("127.0.0.1:8000", "sglang", "sglang-8000")},
		staticConfigs(t, lookup)["sglang"])

	// MODELPLANE_SGLANG_TARGET set elsewhere: the SGLang at 8000 is not taken, and the log says
	// how to.
	_, moved, absent = placeProbedTargets(lookupOf(map[string]string{"MODELPLANE_SGLANG_TARGET": "127.0.0.1:30001", dcgmExporterVariable: none}),
		at(map[string]finding{"127.0.0.1:8000": {serves: sglang}}))
	assert.Empty(t, moved)
	require.Len(t, absent, 1)
	assert.Equal(t, "it serves SGLang's page, and MODELPLANE_SGLANG_TARGET is set: list this address in it to scrape it", absent[0].what())

	// A dcgm-exporter's page is not an engine's: never moved to an engine's job.
	_, moved, absent = placeProbedTargets(lookupOf(map[string]string{"MODELPLANE_SGLANG_TARGET": none}),
		at(map[string]finding{"127.0.0.1:8000": {serves: &probedTargets[2]}}))
	assert.Empty(t, moved)
	assert.Len(t, absent, 2)

	// SGLang without --enable-metrics serves no /metrics: said, with the reason.
	_, _, absent = placeProbedTargets(lookupOf(map[string]string{"MODELPLANE_VLLM_TARGET": none, dcgmExporterVariable: none}),
		at(map[string]finding{"127.0.0.1:30000": {why: "GET /metrics answered 404 Not Found", notFound: true}}))
	require.Len(t, absent, 1)
	assert.Equal(t, "GET /metrics answered 404 Not Found; SGLang serves /metrics only when started with --enable-metrics", absent[0].what())

	// Nor does a NIM on vLLM's port, which serves /v1/metrics: the log says how to read it.
	_, _, absent = placeProbedTargets(lookupOf(map[string]string{"MODELPLANE_SGLANG_TARGET": none, dcgmExporterVariable: none}),
		at(map[string]finding{"127.0.0.1:8000": {why: "GET /metrics answered 404 Not Found", notFound: true}}))
	require.Len(t, absent, 1)
	assert.Equal(t, "GET /metrics answered 404 Not Found; a vLLM serves /metrics; an NVIDIA NIM, which serves on this port too, has its metrics at /v1/metrics, read with MODELPLANE_NIM_TARGET=127.0.0.1:8000",
		absent[0].what())
}

func resolved(t *testing.T, lookup func(string) (string, bool)) *confmap.Conf {
	t.Helper()
	r, err := retrieveDefault(lookup)
	require.NoError(t, err)
	raw, err := r.AsRaw()
	require.NoError(t, err)
	return confmap.NewFromStringMap(raw.(map[string]any))
}

// ownPage finds at each default address its own target's page.
func ownPage(addr string) finding {
	for i, p := range probedTargets {
		if valueOf(p.variable, unset) == addr {
			return finding{serves: &probedTargets[i]}
		}
	}
	return finding{why: "nothing listens there"}
}
