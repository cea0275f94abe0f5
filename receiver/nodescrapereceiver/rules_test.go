// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver

import (
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/relabel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v2"
)

func rules(t *testing.T, text string) []*relabel.Config {
	t.Helper()
	var out []*relabel.Config
	require.NoError(t, yaml.Unmarshal([]byte(text), &out))
	for _, r := range out {
		require.NoError(t, r.Validate(model.UTF8Validation))
	}
	return out
}

// A keep or drop on __name__ moves ahead only past rules that leave the name as it is.
func TestNameRulesMoveAheadOnlyPastRulesThatKeepTheName(t *testing.T) {
	for _, tc := range []struct {
		name         string
		rules        string
		byName, rest int
	}{
		{"the default's vLLM job and the scrape filter", `
- {source_labels: [exported_engine], regex: "(.+)", target_label: engine_index}
- {regex: exported_engine, action: labeldrop}
- {source_labels: [__name__], regex: "vllm:.*", action: keep}`, 1, 2},
		{"a rename before it", `
- {source_labels: [__name__], regex: "old", target_label: __name__, replacement: new}
- {source_labels: [__name__], regex: "new", action: keep}`, 0, 2},
		{"a labelmap before it", `
- {regex: "x_(.*)", action: labelmap}
- {source_labels: [__name__], regex: "a", action: drop}`, 0, 2},
		{"a labelkeep that drops the name", `
- {regex: "job|instance", action: labelkeep}
- {source_labels: [__name__], regex: "a", action: keep}`, 0, 2},
		{"a filter on two labels", `
- {source_labels: [__name__, job], regex: "a;b", action: keep}`, 0, 1},
		{"drops, then a name keep", `
- {source_labels: [job], regex: "x", action: drop}
- {source_labels: [__name__], regex: "a", action: drop}
- {source_labels: [__name__], regex: "b", action: keep}`, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			byName, rest := splitRules(rules(t, tc.rules))
			assert.Len(t, byName, tc.byName)
			assert.Len(t, rest, tc.rest)
		})
	}
}

func TestKeepName(t *testing.T) {
	byName, _ := splitRules(rules(t, `
- {source_labels: [__name__], regex: "vllm:.*|up", action: keep}
- {source_labels: [__name__], regex: "vllm:hidden", action: drop}`))
	assert.True(t, keepName(byName, "vllm:num_requests_waiting"))
	assert.False(t, keepName(byName, "vllm:hidden"))
	assert.False(t, keepName(byName, "python_gc_objects_collected_total"))
	assert.True(t, keepName(nil, "anything"))
}
