package preview

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A page only an off-by-default built-in reads (NIM's) previews empty; the note says which
// mapping reads it and how to run it. Where a running mapping read the page, or the built-ins
// are off, or the mapping is already selected, there is no note.
func TestIdleMappingNotes(t *testing.T) {
	nim, err := os.ReadFile(filepath.Join("..", "..", "processor", "modelplanemapping", "testdata", "pages", "nim-llm.prom"))
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
	epp, err := os.ReadFile(filepath.Join("..", "..", "testdata", "exposition", "epp.prom"))
	require.NoError(t, err)
	assert.Empty(t, idleMappingNotes(epp, Options{}, 8))
	assert.Len(t, idleMappingNotes(epp, Options{Builtin: []string{"modelplane-vllm"}}, 0), 2, "picker and picker-legacy, when neither runs")
}

func TestSampleNames(t *testing.T) {
	page := "# HELP a_total x\n# TYPE a_total counter\na_total{x=\"1\"} 1\nb 2\n  c_bucket{le=\"1\"} 3\n\n# EOF\n"
	assert.Equal(t, map[string]bool{"a_total": true, "b": true, "c_bucket": true}, sampleNames([]byte(page)))
}
