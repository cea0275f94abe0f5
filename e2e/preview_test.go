// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// preview runs `otelcol-modelplane preview` with args and returns its stdout, stderr and
// exit status.
func preview(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return previewWithStdin(t, nil, args...)
}

func previewWithStdin(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(collectorBin, append([]string{"preview"}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, errOut.String())
		return out.String(), errOut.String(), exit.ExitCode()
	}
	return out.String(), errOut.String(), 0
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$`)
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// pageSeries reads an exposition page into series keys (name and sorted labels, without
// those named in drop) and their values.
func pageSeries(t *testing.T, page string, drop ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(page, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		require.NotNil(t, m, "not a sample line: %q", line)
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		out[seriesKey(m[1], labels, drop)] = m[3]
	}
	return out
}

func seriesKey(name string, labels map[string]string, drop []string) string {
	var pairs []string
	for k, v := range labels {
		if k == "__name__" || slices.Contains(drop, k) {
			continue
		}
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// A page from a file (and the same piped in), with the target labels Kubernetes would give
// the pod: only
// modelplane_* series (and the exporter's target_info), values as the page has them, and
// the identity labels on every series.
func TestPreviewOfAFile(t *testing.T) {
	page := filepath.Join(repoRoot(), "testdata", "exposition", "vllm.prom")
	out, errOut, code := preview(t, "--label", "deployment=llama", "--label", "replica=llama-0", page, "--job", "vllm")
	require.Zero(t, code, errOut)
	series := pageSeries(t, out)
	require.NotEmpty(t, series)
	for s := range series {
		assert.True(t, strings.HasPrefix(s, "modelplane_") || strings.HasPrefix(s, "target_info{"), s)
		if strings.HasPrefix(s, "modelplane_") {
			assert.Contains(t, s, "deployment=llama,", s)
			assert.Contains(t, s, "job=vllm,", s)
			assert.Contains(t, s, "replica=llama-0,", s)
		}
	}
	// vllm:num_requests_waiting{engine="0",...} 2.0 in the page.
	assert.Equal(t, "2", series[`modelplane_requests_waiting{deployment=llama,engine=0,instance=vllm.prom,job=vllm,model_name=meta-llama/Llama-3.1-8B-Instruct,replica=llama-0,service_instance_id=vllm.prom,service_name=vllm}`])
	// The page's own engine label shows as engine without --label engine; the note says
	// what a deployed engine job makes of it.
	assert.Regexp(t, `^note: the page labels its series engine="0" itself \(vLLM's engine index\), shown here as engine; a collector's engine job sets engine to the engine's kind and delivers the page's value as engine_index: --label engine=vllm shows that\n\d+ points scraped: \d+ read by a mapping, \d+ dropped as not modelplane_\*\n$`, errOut)

	// The same page piped in, as from `kubectl exec POD -- curl -s localhost:8000/metrics`.
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	piped, errOut, code := previewWithStdin(t, data, "--label", "deployment=llama", "--label", "replica=llama-0", "--job", "vllm", "-")
	require.Zero(t, code, errOut)
	assert.Equal(t, pageSeries(t, out, "instance", "service_instance_id"), pageSeries(t, piped, "instance", "service_instance_id"))
	assert.Contains(t, piped, `instance="stdin"`)
}

// A NIM's page, whose unprefixed names only the off-by-default modelplane-nim reads: the
// default preview is empty and its note says how to run that mapping; --builtin does, and
// contradicting --no-builtins is a usage error.
func TestPreviewOfANIMPage(t *testing.T) {
	page := filepath.Join(repoRoot(), "processor", "modelplanemapping", "testdata", "pages", "nim-llm.prom")
	out, errOut, code := preview(t, page)
	require.Zero(t, code, errOut)
	for s := range pageSeries(t, out) {
		assert.NotContains(t, s, "modelplane_")
	}
	assert.Contains(t, errOut, "note: no running mapping reads this page, but the built-in modelplane-nim (off by default) reads 10 of its metrics: --builtin default,modelplane-nim runs it\n")

	out, errOut, code = preview(t, "--builtin", "default,modelplane-nim", "--label", "replica=llama-0", page)
	require.Zero(t, code, errOut)
	series := pageSeries(t, out, "instance", "job", "service_instance_id", "service_name", "model_name")
	assert.Equal(t, "3", series["modelplane_requests_running{replica=llama-0}"])
	assert.Equal(t, "1512", series["modelplane_responses_total{reason=stop,replica=llama-0}"])
	assert.NotContains(t, errOut, "note:")

	_, errOut, code = preview(t, "--no-builtins", "--builtin", "modelplane-nim", page)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "preview: --no-builtins and --builtin modelplane-nim contradict each other")
}

// A user's own mapping on their engine's page: the millisecond histogram comes out in
// seconds with the bounds an engine reporting seconds would publish.
func TestPreviewOfAUserMapping(t *testing.T) {
	out, errOut, code := preview(t, "--mapping", "testdata/my-engine-mapping.yaml", "--no-builtins", "testdata/my-engine.prom")
	require.Zero(t, code, errOut)
	series := pageSeries(t, out, "instance", "job", "service_instance_id", "service_name", "model_name")
	for le, count := range map[string]string{"0.001": "1", "0.009": "3", "0.025": "5", "0.1": "8", "+Inf": "9"} {
		assert.Equal(t, count, series["modelplane_request_kv_transfer_seconds_bucket{le="+le+"}"], le)
	}
	assert.Equal(t, "0.25", series["modelplane_request_kv_transfer_seconds_sum{}"])
	assert.Contains(t, series, `modelplane_requests_waiting{}`)
}

// A mapping that maps a built-in's source to another name, and one that converts a
// built-in's source again: the preview shows what the collector would serve (the built-in's
// name, values scaled twice) and says why in a note naming both entries, without failing.
func TestPreviewOfAMappingABuiltinOverrides(t *testing.T) {
	mine := filepath.Join(t.TempDir(), "queue.yaml")
	require.NoError(t, os.WriteFile(mine, []byte(`apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: queue}
spec:
  metrics:
  - {from: "vllm:num_requests_waiting", to: modelplane_queue_depth}
`), 0o600))
	out, errOut, code := preview(t, "--mapping", mine, "../testdata/exposition/vllm.prom")
	require.Zero(t, code, errOut)
	assert.Contains(t, out, "\nmodelplane_requests_waiting{")
	assert.NotContains(t, out, "modelplane_queue_depth")
	assert.Contains(t, errOut, "note: "+mine+`: MetricMapping "queue" metrics[0]: "vllm:num_requests_waiting" never becomes "modelplane_queue_depth": builtin/vllm.yaml: MetricMapping "modelplane-vllm"`)
}

// Entries whose names mislead: one copied from the page's _count series of a histogram,
// which reads nothing, and one whose target the exporter serves with the unit added. The
// preview shows what the collector serves and says why in a note for each, without failing.
func TestPreviewOfMisleadingNames(t *testing.T) {
	mine := filepath.Join(t.TempDir(), "mine.yaml")
	require.NoError(t, os.WriteFile(mine, []byte(`apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: mine}
spec:
  metrics:
  - {from: my_engine_kv_transfer_ms_count, to: modelplane_kv_transfers_total}
  - {from: my_engine_kv_transfer_ms, to: modelplane_kv_transfer, fromUnit: Milliseconds}
`), 0o600))
	out, errOut, code := preview(t, "--mapping", mine, "--no-builtins", "testdata/my-engine.prom")
	require.Zero(t, code, errOut)
	assert.NotContains(t, out, "modelplane_kv_transfers_total")
	assert.Contains(t, out, "\nmodelplane_kv_transfer_seconds_count{")
	assert.Contains(t, errOut, "note: "+mine+`: MetricMapping "mine" metrics[0]: "my_engine_kv_transfer_ms_count" reads nothing on this page: it is a series of the histogram "my_engine_kv_transfer_ms", which a mapping names whole: from: "my_engine_kv_transfer_ms" with part: Count for its count`+"\n")
	assert.Contains(t, errOut, "note: "+mine+`: MetricMapping "mine" metrics[1]: the Prometheus exporters serve "modelplane_kv_transfer" as "modelplane_kv_transfer_seconds"`)
}

// A mapping file with a mistake: the preview fails with a message that names the file,
// the field and the value, and prints no page. So do a misspelt mapping path, a page the
// Prometheus receiver cannot parse, an engine that does not answer and a malformed flag.
func TestPreviewOfABrokenMapping(t *testing.T) {
	good, err := os.ReadFile("testdata/my-engine-mapping.yaml")
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "my-engine.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(good), "fromUnit: Milliseconds", "fromUnit: Milisecond", 1)), 0o600))
	out, errOut, code := preview(t, "--mapping", bad, "testdata/my-engine.prom")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, bad)
	assert.Contains(t, errOut, `metrics[1].fromUnit: unknown unit "Milisecond"`)

	_, errOut, code = preview(t, "--mapping", "testdata/my-engine-mapings.yaml", "testdata/my-engine.prom")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `mapping "testdata/my-engine-mapings.yaml": no such file`)

	garbage := filepath.Join(t.TempDir(), "garbage.prom")
	require.NoError(t, os.WriteFile(garbage, []byte("this is not { a page\n"), 0o600))
	_, errOut, code = preview(t, garbage)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `the Prometheus receiver cannot read the page: strconv.ParseFloat: parsing "is": invalid syntax`)

	_, errOut, code = preview(t, "http://127.0.0.1:1/metrics")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "GET http://127.0.0.1:1/metrics")
	assert.Contains(t, errOut, "connection refused")

	_, errOut, code = preview(t, "--label", "replica", "testdata/my-engine.prom")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `want NAME=VALUE, got "replica"`)
}

// A page the collector would refuse under its per-target limits, the preview refuses too,
// saying so and naming the limits; it used to show every one of its series.
func TestPreviewOfAPageOverTheLimits(t *testing.T) {
	out, errOut, code := preview(t, floodPage(t, 20_001))
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "the collector would refuse the page: sample limit exceeded (its per-target limits, as the embedded default, the host config and the chart set them: body_size_limit 16MiB, sample_limit 20000 series kept; docs/reliability.md)")
}

// What the preview shows for a live engine is what a running collector delivers for it
// (through the scrape job of the e2e harness, which relabels as the chart's engines job does):
// the same series, by name and labels, as a real Prometheus holds from remote write (less the
// cluster label the DaemonSet's resource processor adds and the scope labels the preview
// leaves out).
func TestPreviewMatchesWhatPrometheusReceives(t *testing.T) {
	f := startFleet(t, true)
	e := f.engines[0]
	args := []string{"--job", "vllm-0", "--mapping", filepath.Join(f.mapDir, "*.yaml"), "http://" + e.Addr + "/metrics"}
	for k, v := range e.Labels {
		args = append(args, "--label", k+"="+v)
	}
	out, errOut, code := preview(t, args...)
	require.Zero(t, code, errOut)
	got := map[string]bool{}
	for s := range pageSeries(t, out, "service_instance_id", "service_name") {
		if !strings.HasPrefix(s, "target_info{") {
			got[s] = true
		}
	}
	want := map[string]bool{}
	for _, s := range f.prom.query(t, `{replica="llama-0"}`) {
		want[seriesKey(s.Labels["__name__"], s.Labels, []string{"cluster", "otel_scope_name", "otel_scope_version", "service_instance_id", "service_name"})] = true
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
	// vLLM's engine index under the name the shipped configs give it (the preview showed
	// exported_engine="0" where they deliver engine_index="0").
	for s := range got {
		assert.Contains(t, s, "engine_index=0", s)
		assert.NotContains(t, s, "exported_", s)
	}
}
