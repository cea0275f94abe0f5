// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package preview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// A page only an off-by-default built-in reads (NIM's) previews empty; the note says which
// mapping reads it and how to run it. Where a running mapping read the page, or the built-ins
// are off, or the mapping is already selected, there is no note.
func TestIdleMappingNotes(t *testing.T) {
	nim, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "processor", "modelplanemapping", "testdata", "pages", "nim-llm.prom"))
	require.NoError(t, err)
	assert.Equal(t, []string{"no running mapping reads this page, but the built-in modelplane-nim (off by default) reads 10 of its metrics: --builtin default,modelplane-nim runs it"},
		idleMappingNotes(nim, Options{}, 0))
	assert.Equal(t, []string{"no running mapping reads this page, but the built-in modelplane-nim (off by default) reads 10 of its metrics: --builtin modelplane-vllm,modelplane-nim runs it"},
		idleMappingNotes(nim, Options{Builtin: []string{"modelplane-vllm"}}, 0), "the user's selection, extended")
	assert.Empty(t, idleMappingNotes(nim, Options{Builtin: []string{"default", "modelplane-nim"}}, 0))
	assert.Empty(t, idleMappingNotes(nim, Options{NoBuiltins: true}, 0))
	assert.Empty(t, idleMappingNotes(nim, Options{}, 3))

	// The endpoint picker's page holds the legacy family too; it is read, so no note
	// suggests running the legacy mapping beside the current one.
	epp, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "exposition", "epp.prom"))
	require.NoError(t, err)
	assert.Empty(t, idleMappingNotes(epp, Options{}, 8))
	assert.Len(t, idleMappingNotes(epp, Options{Builtin: []string{"modelplane-vllm"}}, 0), 2, "picker and picker-legacy, when neither runs")
}

// The sample names of a page, in the text format and in OpenMetrics (Prometheus' textparse).
func TestSampleNames(t *testing.T) {
	text := "# HELP a_total x\n# TYPE a_total counter\na_total{x=\"1\"} 1\nb 2\n# TYPE c histogram\nc_bucket{le=\"1\"} 3\nc_bucket{le=\"+Inf\"} 3\nc_count 3\nc_sum 1\n"
	assert.Equal(t, map[string]bool{"a_total": true, "b": true, "c_bucket": true, "c_count": true, "c_sum": true}, sampleNames([]byte(text)))
	om := "# TYPE a counter\na_total{x=\"1\"} 1\na_created{x=\"1\"} 1.7e9\n# TYPE b gauge\nb 2\n# EOF\n"
	names, types := pageFamilies([]byte(om))
	assert.Equal(t, map[string]bool{"a_total": true, "a_created": true, "b": true}, names)
	assert.Equal(t, map[string]string{"a": "counter", "b": "gauge"}, types)
}

// vLLM's own engine label (its engine index) shows as engine in a preview without
// --label engine; the note says what a deployed engine job delivers instead. With the label
// given, or with no engine label on the output, there is no note.
func TestEngineLabelNote(t *testing.T) {
	vllm, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "exposition", "vllm.prom"))
	require.NoError(t, err)
	out := []byte("# TYPE modelplane_requests_waiting gauge\n" +
		`modelplane_requests_waiting{engine="0",instance="vllm.prom",job="preview",model_name="m"} 2` + "\n" +
		`modelplane_requests_running{engine="1",model_name="m"} 1` + "\n" +
		`modelplane_requests_running{engine="0",model_name="m"} 1` + "\n" +
		`target_info{engine="x",instance="vllm.prom"} 1` + "\n")
	assert.Equal(t, []string{`the page labels its series engine="0", engine="1" itself (vLLM's engine index), shown here as engine; a collector's engine job sets engine to the engine's kind and delivers the page's value as engine_index: --label engine=vllm shows that`},
		engineLabelNote(vllm, out, Options{}))
	assert.Empty(t, engineLabelNote(vllm, out, Options{Labels: map[string]string{"engine": "vllm"}}))
	assert.Empty(t, engineLabelNote(vllm, []byte(`modelplane_requests_waiting{engine_index="0",model_name="m"} 2`+"\n"), Options{}))
	assert.Equal(t, []string{`the page labels its series engine="a" itself, shown here as engine; a collector's engine job sets engine to the engine's kind and delivers the page's value as engine_index: --label engine=KIND shows that`},
		engineLabelNote([]byte(`my_queue{engine="a"} 1`+"\n"), []byte(`modelplane_requests_waiting{engine="a"} 1`+"\n"), Options{}), "an engine of no known prefix")
	assert.Empty(t, engineLabelNote([]byte("my_queue 1\n"), []byte(`modelplane_requests_waiting{engine="mine"} 1`+"\n"), Options{}), "set by a mapping, not the page")
}

func TestEmptyPageNote(t *testing.T) {
	want := []string{"the page holds no samples: the points counted are the scrape's own (up, scrape_*); is it the engine's metrics page?"}
	assert.Equal(t, want, emptyPageNote(nil))
	assert.Equal(t, want, emptyPageNote([]byte("# HELP a x\n# TYPE a gauge\n\n# EOF\n")))
	assert.Empty(t, emptyPageNote([]byte("a 1\n")))
}

// An entry of the user's mappings that reads nothing on the page is explained where the page
// shows what it meant: a histogram's series copied from the page, a counter without its
// _total, a misspelling; an entry for another engine gets no note. In the text format and
// in OpenMetrics, which names a counter's family without _total.
func TestUnreadEntryNotes(t *testing.T) {
	page, err := os.ReadFile("../../../../testdata/exposition/vllm.prom")
	require.NoError(t, err)
	m := metricmapping.MetricMapping{Source: "mine.yaml", Name: "mine", Metrics: []metricmapping.Entry{
		{From: "vllm:request_params_n_count", To: "modelplane_a_total"},
		{From: "vllm:request_params_n_sum", To: "modelplane_b_total"},
		{From: "vllm:request_params_max_tokens_bucket", To: "modelplane_c"},
		{From: "vllm:estimated_flops_per_gpu", To: "modelplane_d_total"},
		{From: "vllm:num_request_waiting", To: "modelplane_e"},
		// These read the page, or are for another engine.
		{From: "vllm:request_params_n", To: "modelplane_f"},
		{From: "vllm:num_preemptions_total", To: "modelplane_g_total"},
		{From: "sglang:num_queue_reqs", To: "modelplane_h"},
		{From: "num_requests_waiting", To: "modelplane_i"},
		{From: "modelplane_request_duration_seconds", To: "modelplane_j_seconds"},
		{From: "vllm:request_prompt_tokens_total", To: "modelplane_k_total"}, // near a metric of the page, but no misspelling
		// One metric under its names of two vLLM releases, both mapped: the older reads
		// nothing on this page, and is no misspelling of the newer.
		{From: "vllm:gpu_cache_usage_perc", To: "modelplane_l_ratio"},
		{From: "vllm:kv_cache_usage_perc", To: "modelplane_l_ratio"},
	}}
	const at = `mine.yaml: MetricMapping "mine" `
	want := []string{
		at + `metrics[0]: "vllm:request_params_n_count" reads nothing on this page: it is a series of the histogram "vllm:request_params_n", which a mapping names whole: from: "vllm:request_params_n" with part: Count for its count`,
		at + `metrics[1]: "vllm:request_params_n_sum" reads nothing on this page: it is a series of the histogram "vllm:request_params_n", which a mapping names whole: from: "vllm:request_params_n" with part: Sum for its sum`,
		at + `metrics[2]: "vllm:request_params_max_tokens_bucket" reads nothing on this page: it is a series of the histogram "vllm:request_params_max_tokens", which a mapping names whole: from: "vllm:request_params_max_tokens"`,
		at + `metrics[3]: "vllm:estimated_flops_per_gpu" reads nothing on this page: the page's counter is "vllm:estimated_flops_per_gpu_total", and the collector names a counter with its _total: from: "vllm:estimated_flops_per_gpu_total"`,
		at + `metrics[4]: "vllm:num_request_waiting" reads nothing on this page: did you mean "vllm:num_requests_waiting"?`,
	}
	assert.Equal(t, want, unreadEntryNotes(page, []metricmapping.MetricMapping{m}))

	om := strings.ReplaceAll(string(page), "# TYPE vllm:estimated_flops_per_gpu_total counter", "# TYPE vllm:estimated_flops_per_gpu counter")
	assert.Equal(t, want, unreadEntryNotes([]byte(om), []metricmapping.MetricMapping{m}))
}

// The built-in catalog, read as a user's mapping files would be, explains nothing away on the
// shared pages: every entry that reads nothing there is for another engine or release.
func TestUnreadEntryNotesCatalog(t *testing.T) {
	cat, err := metricmapping.LoadBuiltin()
	require.NoError(t, err)
	pages, err := filepath.Glob("../../../../testdata/exposition/*.prom")
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	for _, p := range pages {
		page, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Empty(t, unreadEntryNotes(page, cat.Mappings), p)
	}
}
