// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package metricmapping

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every target the catalog reaches has one canonical description, and the table names
// nothing the catalog does not reach.
func TestDescriptionsCoverTheCatalog(t *testing.T) {
	cat, err := LoadBuiltin()
	require.NoError(t, err)
	d, err := BuiltinDescriptions()
	require.NoError(t, err)
	targets := map[string]bool{}
	for _, m := range cat.Mappings {
		for _, e := range m.Metrics {
			targets[e.To] = true
		}
	}
	var missing, extra []string
	for to := range targets {
		if strings.TrimSpace(d[to]) == "" {
			missing = append(missing, to)
		}
	}
	for name := range d {
		if !targets[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	assert.Empty(t, missing, "targets without a description")
	assert.Empty(t, extra, "descriptions of targets no built-in mapping reaches")
}

// A list selects the mappings it names; `default` in it stands for those on by default, so an
// off-by-default mapping is added to them without copying their names.
func TestSelect(t *testing.T) {
	cat, err := LoadBuiltin()
	require.NoError(t, err)
	names := func(sel []string) []string {
		ms, unknown := cat.Select(sel)
		require.Empty(t, unknown)
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	defaults := []string{"modelplane-gateway", "modelplane-gpu", "modelplane-gpu-dcgm49", "modelplane-picker", "modelplane-picker-legacy", "modelplane-sglang", "modelplane-vllm"}
	assert.Equal(t, defaults, names(nil))
	assert.Equal(t, defaults, names([]string{"default"}))
	assert.Equal(t, []string{"modelplane-gateway", "modelplane-gpu", "modelplane-gpu-dcgm49", "modelplane-nim", "modelplane-picker", "modelplane-picker-legacy", "modelplane-sglang", "modelplane-vllm"},
		names([]string{"default", "modelplane-nim"}), "in catalog order, whatever the list's")
	assert.Equal(t, []string{"modelplane-nim", "modelplane-vllm"}, names([]string{"modelplane-vllm", "modelplane-nim"}))
	assert.Empty(t, names([]string{}))

	_, unknown := cat.Select([]string{"default", "modelplane-triton", "modelplane-triton"})
	assert.Equal(t, []string{"modelplane-triton"}, unknown)
}
