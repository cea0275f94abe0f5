// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

// The scrape filter's watch reads the mapping files every reload_interval: a file that has
// not changed is not decoded again, and the built-ins are decoded once.
func TestScrapeFilterLocalDecodesOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(file, []byte(mappingDoc("v1")), 0o600))
	f, err := ScrapeFilterOf(confmap.NewFromStringMap(map[string]any{
		"scrape_filter": true, "mapping_files": []any{file}, "keep_sources": []any{"DCGM_FI_*"},
	}))
	require.NoError(t, err)
	first, err := f.Local()
	require.NoError(t, err)
	assert.True(t, first["src_a"] && first["DCGM_FI_*"] && first["vllm:num_requests_waiting"])
	state, fixed := f.files.state[file], f.fixed

	again, err := f.Local()
	require.NoError(t, err)
	assert.Equal(t, first, again)
	assert.Same(t, state, f.files.state[file], "the unchanged file is not decoded again")
	assert.Equal(t, fixed, f.fixed)

	require.NoError(t, os.WriteFile(file, []byte(mappingDoc("v2")+"  - from: src_new\n    to: modelplane_new\n"), 0o600))
	changed, err := f.Local()
	require.NoError(t, err)
	assert.True(t, changed["src_new"])
	assert.NotSame(t, state, f.files.state[file])
}
