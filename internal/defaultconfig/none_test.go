package defaultconfig

import (
	"net"
	"slices"
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
	jobs, _ := conf.Get("receivers::prometheus::config::scrape_configs").([]any)
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
	assert.Len(t, conf.Get("receivers::prometheus::config::scrape_configs").([]any)[0].(map[string]any)["static_configs"], 2, "lists still spread")

	conf = defaultWith(t, map[string]string{"MODELPLANE_VLLM_TARGET": "none", "MODELPLANE_SGLANG_TARGET": "none", "MODELPLANE_DCGM_EXPORTER_TARGET": "none"})
	assert.False(t, conf.IsSet("receivers::prometheus"))
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
	nim := conf.Get("receivers::prometheus::config::scrape_configs").([]any)[1].(map[string]any)
	assert.Equal(t, "/v1/metrics", nim["metrics_path"])
	assert.Equal(t, []any{"default", "modelplane-nim"}, conf.Get("processors::modelplane_mapping::builtin"))

	conf = defaultWith(t, map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8000,127.0.0.1:8001", "MODELPLANE_VLLM_TARGET": "none"})
	nim = conf.Get("receivers::prometheus::config::scrape_configs").([]any)[1].(map[string]any)
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
// that target only where something answers at its default address when the configuration is
// loaded; otherwise its job is left out as for none, and the GPU receiver, without an
// exporter to defer to, reads the GPUs. A variable that is set is used as it is, answering or
// not, and nothing is probed for it.
func TestAbsentTargetsLeftOut(t *testing.T) {
	var probed []string
	answering := func(addrs ...string) func(string) bool {
		return func(addr string) bool { probed = append(probed, addr); return slices.Contains(addrs, addr) }
	}
	resolve := func(lookup func(string) (string, bool)) *confmap.Conf {
		r, err := retrieveDefault(lookup)
		require.NoError(t, err)
		raw, err := r.AsRaw()
		require.NoError(t, err)
		return confmap.NewFromStringMap(raw.(map[string]any))
	}
	names := func(absent []absentTarget) (n []string) {
		for _, a := range absent {
			n = append(n, a.name+"@"+a.addr)
		}
		return n
	}

	// A vLLM host without SGLang or dcgm-exporter.
	lookup, absent := withoutAbsentTargets(lookupOf(nil), answering("127.0.0.1:8000"))
	assert.Equal(t, []string{"127.0.0.1:8000", "127.0.0.1:30000", "127.0.0.1:9400"}, probed)
	assert.Equal(t, []string{"SGLang@127.0.0.1:30000", "dcgm-exporter@127.0.0.1:9400"}, names(absent))
	conf := resolve(lookup)
	assert.Equal(t, []string{"vllm"}, jobNames(conf))
	assert.False(t, conf.IsSet("receivers::dcgm::defer_to_exporter"), "nothing to defer to")

	// Nothing answers (a container without the host's network): no job, no Prometheus receiver.
	probed = nil
	lookup, absent = withoutAbsentTargets(lookupOf(nil), answering())
	assert.Len(t, absent, 3)
	conf = resolve(lookup)
	assert.False(t, conf.IsSet("receivers::prometheus"))
	assert.Equal(t, []any{"dcgm"}, conf.Get("service::pipelines::metrics::receivers"))

	probed = nil
	lookup, absent = withoutAbsentTargets(lookupOf(nil), answering("127.0.0.1:8000", "127.0.0.1:30000", "127.0.0.1:9400"))
	assert.Empty(t, absent)
	assert.Equal(t, []string{"vllm", "sglang", "dcgm-exporter"}, jobNames(resolve(lookup)))

	probed = nil
	lookup, absent = withoutAbsentTargets(lookupOf(map[string]string{
		"MODELPLANE_VLLM_TARGET": "10.0.0.1:8000", "MODELPLANE_SGLANG_TARGET": "none", dcgmExporterVariable: "10.0.0.7:9400",
	}), answering())
	assert.Empty(t, absent)
	assert.Empty(t, probed, "a variable that is set is not probed")
	assert.Equal(t, []string{"vllm", "dcgm-exporter"}, jobNames(resolve(lookup)))
}

// answers connects: true while something listens, false once it has stopped.
func TestAnswers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	assert.True(t, answers(addr))
	require.NoError(t, l.Close())
	assert.False(t, answers(addr))
}
