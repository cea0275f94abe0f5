// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// The variables checked are exactly those default.yaml reads, with its defaults.
func TestVariablesAreThoseOfTheDefault(t *testing.T) {
	// A default may itself be one reference: ${env:NODE_NAME:-${env:HOSTNAME}}.
	ref := regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-((?:\$\{[^}]*\}|[^}])*))?\}`)
	inYAML := map[string]string{}
	for _, m := range ref.FindAllStringSubmatch(string(YAML), -1) {
		if def, seen := inYAML[m[1]]; seen {
			require.Equal(t, def, m[2], "%s has two defaults in default.yaml", m[1])
		}
		inYAML[m[1]] = m[2]
	}
	// The telemetry endpoint is a host and a port in default.yaml, which the provider sets
	// from the variable.
	r, err := confmap.NewRetrievedFromYAML(YAML)
	require.NoError(t, err)
	raw, err := r.AsRaw()
	require.NoError(t, err)
	readers := confmap.NewFromStringMap(raw.(map[string]any)).Get("service::telemetry::metrics::readers").([]any)
	require.Len(t, readers, 1)
	prom := readers[0].(map[string]any)["pull"].(map[string]any)["exporter"].(map[string]any)["prometheus"].(map[string]any)
	inYAML[telemetryVariable] = fmt.Sprintf("%v:%v", prom["host"], prom["port"])
	checked := map[string]string{}
	for _, v := range variables {
		checked[v.name] = v.def
	}
	assert.Equal(t, inYAML, checked)
}

func TestCheckEnv(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	for _, ok := range []func(string) (string, bool){
		env(),
		env("MODELPLANE_VLLM_TARGET", "10.0.3.7:8000", "MODELPLANE_SGLANG_TARGET", "sglang.local:30000",
			"MODELPLANE_DCGM_EXPORTER_TARGET", "[::1]:9400", "MODELPLANE_PROMETHEUS_ENDPOINT", ":9464",
			"MODELPLANE_SCRAPE_INTERVAL", "1m30s", "MODELPLANE_CLUSTER", "prod-eu", "NODE_NAME", ""),
		// One port on two hosts' addresses is two addresses.
		env("MODELPLANE_PROMETHEUS_ENDPOINT", "10.0.0.5:9000", "MODELPLANE_TELEMETRY_ENDPOINT", "127.0.0.1:9000"),
	} {
		assert.NoError(t, checkEnv(ok))
	}
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"MODELPLANE_SCRAPE_INTERVAL", "abc"}, `MODELPLANE_SCRAPE_INTERVAL="abc": not a duration such as 15s, 1m or 1m30s`},
		{[]string{"MODELPLANE_SCRAPE_INTERVAL", "1.5s"}, `MODELPLANE_SCRAPE_INTERVAL="1.5s": not a duration such as 15s, 1m or 1m30s`}, // Go takes it, Prometheus does not
		{[]string{"MODELPLANE_SCRAPE_INTERVAL", "0s"}, `MODELPLANE_SCRAPE_INTERVAL="0s": not a duration such as 15s, 1m or 1m30s`},
		{[]string{"MODELPLANE_SCRAPE_INTERVAL", "15"}, `MODELPLANE_SCRAPE_INTERVAL="15": not a duration such as 15s, 1m or 1m30s`},
		{[]string{"MODELPLANE_VLLM_TARGET", "http://10.0.3.7:8000/metrics"}, `MODELPLANE_VLLM_TARGET="http://10.0.3.7:8000/metrics": not host:port, such as 127.0.0.1:8000 (no scheme, no path); several are separated by commas`},
		{[]string{"MODELPLANE_SGLANG_TARGET", ":30000"}, `MODELPLANE_SGLANG_TARGET=":30000": not host:port, such as 127.0.0.1:8000 (no scheme, no path); several are separated by commas`},
		{[]string{"MODELPLANE_DCGM_EXPORTER_TARGET", "localhost:dcgm"}, `MODELPLANE_DCGM_EXPORTER_TARGET="localhost:dcgm": not host:port, such as 127.0.0.1:8000 (no scheme, no path)`},
		{[]string{"MODELPLANE_PROMETHEUS_ENDPOINT", "9464"}, `MODELPLANE_PROMETHEUS_ENDPOINT="9464": not host:port, such as 127.0.0.1:9464 (0.0.0.0:9464 to serve every interface)`},
		{[]string{"MODELPLANE_PROMETHEUS_ENDPOINT", "0.0.0.0:70000"}, `MODELPLANE_PROMETHEUS_ENDPOINT="0.0.0.0:70000": not host:port, such as 127.0.0.1:9464 (0.0.0.0:9464 to serve every interface)`},
		{[]string{"MODELPLANE_CLUSTER", ""}, `MODELPLANE_CLUSTER is set but empty; unset it for the default standalone`},
		{[]string{"MODELPLANE_VLLM_TARGET", ""}, `MODELPLANE_VLLM_TARGET is set but empty; unset it for the default 127.0.0.1:8000`},
		// The series' endpoint and the collector's own metrics on one address.
		{[]string{"MODELPLANE_PROMETHEUS_ENDPOINT", "127.0.0.1:8888"}, `MODELPLANE_PROMETHEUS_ENDPOINT="127.0.0.1:8888" and MODELPLANE_TELEMETRY_ENDPOINT="127.0.0.1:8888" share port 8888: the series and the collector's own metrics each need an address of their own`},
		{[]string{"MODELPLANE_PROMETHEUS_ENDPOINT", "0.0.0.0:9000", "MODELPLANE_TELEMETRY_ENDPOINT", "127.0.0.1:9000"}, `MODELPLANE_PROMETHEUS_ENDPOINT="0.0.0.0:9000" and MODELPLANE_TELEMETRY_ENDPOINT="127.0.0.1:9000" share port 9000: the series and the collector's own metrics each need an address of their own`},
		// Every bad variable is named at once.
		{[]string{"MODELPLANE_SCRAPE_INTERVAL", "abc", "MODELPLANE_CLUSTER", ""}, `MODELPLANE_SCRAPE_INTERVAL="abc": not a duration such as 15s, 1m or 1m30s` + "\nMODELPLANE_CLUSTER is set but empty; unset it for the default standalone"},
	} {
		assert.EqualError(t, checkEnv(env(c.kv...)), c.want)
	}
}

// The provider refuses to serve the default with a bad variable, naming it; the collector
// then stops at start (or `validate` fails) with that message.
func TestProviderNamesABadVariable(t *testing.T) {
	t.Setenv("MODELPLANE_SCRAPE_INTERVAL", "abc")
	_, err := provider{logger: zap.NewNop()}.Retrieve(context.Background(), URI, nil)
	assert.EqualError(t, err, `the embedded default (modelplane:default): MODELPLANE_SCRAPE_INTERVAL="abc": not a duration such as 15s, 1m or 1m30s`)

	t.Setenv("MODELPLANE_SCRAPE_INTERVAL", "30s")
	r, err := provider{logger: zap.NewNop()}.Retrieve(context.Background(), URI, nil)
	require.NoError(t, err)
	raw, err := r.AsRaw()
	require.NoError(t, err)
	assert.Contains(t, raw, "receivers")
}

// The provider serves each embedded configuration by name, and names them for any other.
func TestDocuments(t *testing.T) {
	t.Setenv("MODELPLANE_SCRAPE_INTERVAL", "abc") // the default's variables are checked for the default only
	r, err := provider{logger: zap.NewNop()}.Retrieve(context.Background(), RemoteWriteURI, nil)
	require.NoError(t, err)
	raw, err := r.AsRaw()
	require.NoError(t, err)
	assert.Contains(t, raw.(map[string]any)["exporters"], "prometheus_remote_write")
	r, err = provider{logger: zap.NewNop()}.Retrieve(context.Background(), scheme+":otlp", nil)
	require.NoError(t, err)
	raw, err = r.AsRaw()
	require.NoError(t, err)
	assert.Contains(t, raw.(map[string]any)["exporters"], "otlp_http")
	_, err = provider{logger: zap.NewNop()}.Retrieve(context.Background(), URI, nil)
	assert.ErrorContains(t, err, "MODELPLANE_SCRAPE_INTERVAL")
	_, err = provider{logger: zap.NewNop()}.Retrieve(context.Background(), "modelplane:remote_write", nil)
	assert.EqualError(t, err, `"modelplane:remote_write": the modelplane scheme serves modelplane:default, modelplane:otlp, modelplane:remote-write`)
}

// Two target variables that are set naming one address: refused, naming both. One left
// unset yields its default address instead (TestUnsetDefaultYields).
func TestOneJobPerTarget(t *testing.T) {
	assert.EqualError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8000", "MODELPLANE_VLLM_TARGET": "127.0.0.1:8000"})),
		"MODELPLANE_VLLM_TARGET and MODELPLANE_NIM_TARGET both name 127.0.0.1:8000: a target is one engine, read by one job; set the other to its own address, or to none")
	assert.EqualError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_SGLANG_TARGET": "127.0.0.1:8001,127.0.0.1:9400", "MODELPLANE_DCGM_EXPORTER_TARGET": "127.0.0.1:9400"})),
		"MODELPLANE_SGLANG_TARGET and MODELPLANE_DCGM_EXPORTER_TARGET both name 127.0.0.1:9400: a target is one engine, read by one job; set the other to its own address, or to none")
	require.NoError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8000"})), "vLLM's default yields")
	require.NoError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8000", "MODELPLANE_VLLM_TARGET": "none"})))
	require.NoError(t, checkEnv(lookupOf(map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8001"})))
	require.NoError(t, checkEnv(lookupOf(nil)))
}

// A target variable left unset yields its default address to a set one naming it: a NIM, or
// an SGLang started with --port 8000, at vLLM's 127.0.0.1:8000 leaves the vLLM job out, said
// in one line, where the start was refused before until MODELPLANE_VLLM_TARGET=none was set.
func TestUnsetDefaultYields(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		jobs []string
		line string
	}{
		{map[string]string{"MODELPLANE_NIM_TARGET": "127.0.0.1:8000"}, []string{"sglang", "nim", "dcgm-exporter"},
			"MODELPLANE_VLLM_TARGET is unset, and MODELPLANE_NIM_TARGET names its default address: no vllm job"},
		{map[string]string{"MODELPLANE_SGLANG_TARGET": "127.0.0.1:8000"}, []string{"sglang", "dcgm-exporter"},
			"MODELPLANE_VLLM_TARGET is unset, and MODELPLANE_SGLANG_TARGET names its default address: no vllm job"},
		{map[string]string{"MODELPLANE_VLLM_TARGET": "127.0.0.1:8001,127.0.0.1:9400"}, []string{"vllm", "sglang"},
			"MODELPLANE_DCGM_EXPORTER_TARGET is unset, and MODELPLANE_VLLM_TARGET names its default address: no dcgm-exporter job"},
	} {
		core, logs := observer.New(zapcore.InfoLevel)
		var probed []string
		var mu sync.Mutex
		probe := func(addr string) finding {
			mu.Lock()
			defer mu.Unlock()
			probed = append(probed, addr)
			return ownPage(addr)
		}
		r, err := provider{logger: zap.New(core)}.retrieveEmbedded(lookupOf(tc.env), probe, nil)
		require.NoError(t, err, tc.env)
		assert.Equal(t, tc.jobs, jobsOf(t, r), tc.env)
		require.Equal(t, 1, logs.Len(), tc.env)
		assert.Equal(t, tc.line, logs.All()[0].Message)
		assert.NotContains(t, probed, logs.All()[0].ContextMap()["address"], "a default that yields is not probed")
	}
}
