// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package preview

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// Label values and paths reach the generated configuration intact, whatever they hold.
func TestConfigKeepsValuesIntact(t *testing.T) {
	labels := map[string]string{"replica": `we"ird: {value} # not a comment`, "model": "meta-llama/Llama-3.1-8B-Instruct"}
	var cfg bytes.Buffer
	require.NoError(t, configTemplate.Execute(&cfg, map[string]any{
		"Job": "job: x", "Target": "127.0.0.1:1234", "Labels": labels, "Builtins": false,
		"MappingFiles": []string{"/m/a b.yaml", `/m/"*".yaml`}, "Exporter": "127.0.0.1:1", "Telemetry": 2,
		"Cluster": true, "Kubeconfig": "/home/me/.kube/a: b", "Limits": defaultconfig.ScrapeLimit{BodySize: "16MiB", Samples: 20000},
	}))
	retrieved, err := confmap.NewRetrievedFromYAML(cfg.Bytes())
	require.NoError(t, err, cfg.String())
	conf, err := retrieved.AsConf()
	require.NoError(t, err)
	job := conf.Get("receivers::node_scrape::config::scrape_configs").([]any)[0].(map[string]any)
	assert.Equal(t, "job: x", job["job_name"])
	assert.Equal(t, map[string]any{"body_size_limit": "16MiB", "sample_limit": 20000}, conf.Get("receivers::node_scrape::config::global"))
	static := job["static_configs"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"127.0.0.1:1234"}, static["targets"])
	assert.Equal(t, map[string]any{"replica": labels["replica"], "model": labels["model"]}, static["labels"])
	assert.Equal(t, []any{"/m/a b.yaml", `/m/"*".yaml`}, conf.Get("processors::modelplane_mapping::mapping_files"))
	assert.Equal(t, false, conf.Get("processors::modelplane_mapping::builtin"))
	assert.Equal(t, map[string]any{"enabled": true, "auth_type": "kubeConfig", "kubeconfig": "/home/me/.kube/a: b"},
		conf.Get("processors::modelplane_mapping::cluster_mappings"))
}

// Without --cluster there is no cluster_mappings; with it and no --kubeconfig, the
// processor's default loading (as kubectl's) applies.
func TestConfigClusterMappings(t *testing.T) {
	for _, tc := range []struct {
		values map[string]any
		want   any
	}{
		{map[string]any{"Cluster": false}, nil},
		{map[string]any{"Cluster": true, "Kubeconfig": ""}, map[string]any{"enabled": true, "auth_type": "kubeConfig"}},
	} {
		values := map[string]any{"Job": "preview", "Target": "127.0.0.1:1", "Labels": map[string]string{}, "Builtins": true,
			"MappingFiles": []string{}, "Exporter": "127.0.0.1:1", "Telemetry": 2, "Limits": defaultconfig.ScrapeLimits()}
		maps.Copy(values, tc.values)
		var cfg bytes.Buffer
		require.NoError(t, configTemplate.Execute(&cfg, values))
		retrieved, err := confmap.NewRetrievedFromYAML(cfg.Bytes())
		require.NoError(t, err)
		conf, err := retrieved.AsConf()
		require.NoError(t, err, cfg.String())
		assert.Equal(t, tc.want, conf.Get("processors::modelplane_mapping::cluster_mappings"))
	}
}

// The mapping processor's warnings, and only its, fail a preview, each with its error; an
// overlap between entries, or a misleading name, is a note that does not.
func TestProcessorWarnings(t *testing.T) {
	log := `{"level":"info","otelcol.component.id":"modelplane_mapping","msg":"Mappings loaded"}
{"level":"warn","otelcol.component.id":"prometheus","msg":"Failed to scrape Prometheus endpoint"}
{"level":"warn","otelcol.component.id":"modelplane_mapping","msg":"Skipped a mapping","error":"cluster metricmappings.modelplane.ai: MetricMapping \"x\": metrics[0].labels[0]: both value and from"}
{"level":"warn","otelcol.component.id":"modelplane_mapping","msg":"MetricMappings not read from the API server yet; running without them until they are"}
`
	overlap := `{"level":"warn","otelcol.component.id":"modelplane_mapping","msg":"A mapping entry is overridden by an earlier one","overlap":"a.yaml: MetricMapping \"a\" metrics[0]: \"x\" never becomes \"modelplane_y\""}
`
	notes, err := processorWarnings(log + overlap)
	assert.EqualError(t, err, `the mapping processor warned:
Skipped a mapping: cluster metricmappings.modelplane.ai: MetricMapping "x": metrics[0].labels[0]: both value and from
MetricMappings not read from the API server yet; running without them until they are`)
	assert.Nil(t, notes)
	unit := `{"level":"warn","otelcol.component.id":"modelplane_mapping","msg":"` + modelplanemapping.NameMessage + `","note":"a.yaml: MetricMapping \"a\" metrics[1]: \"x_ms\" is in milliseconds by its name"}
`
	notes, err = processorWarnings(`{"level":"info","otelcol.component.id":"modelplane_mapping","msg":"Mappings loaded"}` + "\n" + overlap + unit)
	require.NoError(t, err)
	assert.Equal(t, []string{`a.yaml: MetricMapping "a" metrics[0]: "x" never becomes "modelplane_y"`, `a.yaml: MetricMapping "a" metrics[1]: "x_ms" is in milliseconds by its name`}, notes)
}

// The processor's counters are read off the collector's own metrics page, summed over
// label sets, with or without the _total suffix.
func TestCountersOf(t *testing.T) {
	page := []byte(`# HELP otelcol_processor_modelplane_mapping_datapoints_in_total Data points that entered the processor.
# TYPE otelcol_processor_modelplane_mapping_datapoints_in_total counter
otelcol_processor_modelplane_mapping_datapoints_in_total{otel_scope_name="x",processor="modelplane_mapping"} 118
otelcol_processor_modelplane_mapping_datapoints_mapped{processor="modelplane_mapping"} 20
otelcol_processor_modelplane_mapping_datapoints_dropped_total{processor="a"} 90
otelcol_processor_modelplane_mapping_datapoints_dropped_total{processor="b"} 8
otelcol_processor_modelplane_mapping_datapoints_in_other 5
`)
	assert.Equal(t, map[string]int64{"in": 118, "mapped": 20, "dropped": 98}, countersOf(page))
}

// A file, or stdin, is served in the format it is written in; its name stands for the
// instance.
func TestFetchOfAFile(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "vllm.prom")
	require.NoError(t, os.WriteFile(text, []byte("a 1\n"), 0o600))
	om := filepath.Join(dir, "vllm.om")
	require.NoError(t, os.WriteFile(om, []byte("a 1\n# EOF\n"), 0o600))

	page, ct, instance, err := fetch(context.Background(), text, nil)
	require.NoError(t, err)
	assert.Equal(t, "a 1\n", string(page))
	assert.Equal(t, "text/plain; version=0.0.4; charset=utf-8", ct)
	assert.Equal(t, "vllm.prom", instance)
	_, ct, _, err = fetch(context.Background(), om, nil)
	require.NoError(t, err)
	assert.Equal(t, "application/openmetrics-text; version=1.0.0; charset=utf-8", ct)

	_, _, _, err = fetch(context.Background(), filepath.Join(dir, "missing.prom"), nil)
	assert.ErrorContains(t, err, "read the page: open "+filepath.Join(dir, "missing.prom"))
	assert.NotContains(t, err.Error(), "give its URL")
	// host:port, as a scrape target is written, is not a file: say how to give an engine.
	_, _, _, err = fetch(context.Background(), "127.0.0.1:8000", nil)
	assert.EqualError(t, err, "read the page: open 127.0.0.1:8000: no such file or directory; for an engine, give its URL: http://127.0.0.1:8000/metrics")

	page, ct, instance, err = fetch(context.Background(), "-", strings.NewReader("b 2\n# EOF\n"))
	require.NoError(t, err)
	assert.Equal(t, "b 2\n# EOF\n", string(page))
	assert.Equal(t, "application/openmetrics-text; version=1.0.0; charset=utf-8", ct)
	assert.Equal(t, "stdin", instance)
}

// The receiver's complaint about a page it cannot parse is read off the collector's JSON log.
func TestScrapeError(t *testing.T) {
	log := `{"level":"info","msg":"Starting"}
not json
{"level":"warn","msg":"Failed to scrape Prometheus endpoint","otelcol.component.id":"prometheus","error":"strconv.ParseFloat: parsing \"is\": invalid syntax while parsing: \"this is\""}
`
	assert.EqualError(t, scrapeError(log), `the Prometheus receiver cannot read the page: strconv.ParseFloat: parsing "is": invalid syntax while parsing: "this is"`)
	assert.NoError(t, scrapeError(`{"level":"warn","msg":"Something else"}`))
	assert.EqualError(t, scrapeError(`{"level":"warn","msg":"Failed to scrape Prometheus endpoint","error":"sample limit exceeded"}`),
		"the collector would refuse the page: sample limit exceeded (its per-target limits, as the embedded default, the host config and the chart set them: body_size_limit 16MiB, sample_limit 20000 series kept; docs/reliability.md)")
}

// An engine's address without a path is read at /metrics, where a scrape job reads it; a URL
// with a path is read as written.
func TestFetchOfAnAddress(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.URL.Path != "/metrics" && r.URL.Path != "/v1/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("a 1\n"))
	}))
	defer srv.Close()
	for _, source := range []string{srv.URL, srv.URL + "/metrics", srv.URL + "/v1/metrics"} {
		page, _, instance, err := fetch(context.Background(), source, nil)
		require.NoError(t, err, source)
		assert.Equal(t, "a 1\n", string(page), source)
		assert.Equal(t, strings.TrimPrefix(srv.URL, "http://"), instance)
	}
	assert.Equal(t, []string{"/metrics", "/metrics", "/v1/metrics"}, paths)
	_, _, _, err := fetch(context.Background(), srv.URL+"/", nil)
	assert.EqualError(t, err, "GET "+srv.URL+"/: 404 Not Found", "a path written is read as written")
}

// An engine that serves no /metrics answers 404 there; the error says which engines do that
// and why. Another status, or a 404 elsewhere, is said as it is.
func TestFetchOfAnEngineWithoutMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/metrics" {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	for _, source := range []string{srv.URL, srv.URL + "/metrics"} {
		_, _, _, err := fetch(context.Background(), source, nil)
		assert.EqualError(t, err, "GET "+srv.URL+"/metrics: 404 Not Found: no page at /metrics; SGLang serves it only when started with --enable-metrics, and a NIM serves its metrics at /v1/metrics", source)
	}
	_, _, _, err := fetch(context.Background(), srv.URL+"/v1/metrics", nil)
	assert.EqualError(t, err, "GET "+srv.URL+"/v1/metrics: 503 Service Unavailable")
	_, _, _, err = fetch(context.Background(), srv.URL+"/stats", nil)
	assert.EqualError(t, err, "GET "+srv.URL+"/stats: 404 Not Found")
}

// An engine that takes the connection and never answers fails the preview when --timeout
// runs out, saying so (the bare error was "context deadline exceeded").
func TestAnEngineThatDoesNotAnswer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	_, err := Run(context.Background(), Options{Source: srv.URL, Timeout: 200 * time.Millisecond})
	require.Error(t, err)
	assert.True(t, strings.HasSuffix(err.Error(), "context deadline exceeded: no answer within --timeout 200ms"), err.Error())
}
