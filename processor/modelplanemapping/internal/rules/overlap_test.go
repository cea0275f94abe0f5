// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

func mapping(source, name string, entries ...metricmapping.Entry) metricmapping.MetricMapping {
	return metricmapping.MetricMapping{Source: source, Name: name, Metrics: entries}
}

// Every entry the run order overrides is named, with the entry that overrides it; what only
// looks alike (a chain that reaches the name again, an earlier entry that keeps the name, the
// same target twice) is not.
func TestOverlaps(t *testing.T) {
	vllm := mapping("builtin/vllm.yaml", "modelplane-vllm",
		metricmapping.Entry{From: "vllm:num_requests_waiting", To: "modelplane_requests_waiting"},
		metricmapping.Entry{From: "vllm:request_queue_time_ms", To: "modelplane_request_queue_seconds", FromUnit: "Milliseconds"},
	)
	for _, tc := range []struct {
		name     string
		mappings []metricmapping.MetricMapping
		want     []string
	}{
		{
			name: "a built-in's source to another name",
			mappings: []metricmapping.MetricMapping{vllm, mapping("/etc/m/mine.yaml", "mine",
				metricmapping.Entry{From: "vllm:num_requests_waiting", To: "modelplane_queue_depth"})},
			want: []string{`/etc/m/mine.yaml: MetricMapping "mine" metrics[0]: "vllm:num_requests_waiting" never becomes "modelplane_queue_depth": ` +
				`builtin/vllm.yaml: MetricMapping "modelplane-vllm" metrics[0] renames it to "modelplane_requests_waiting" first ` +
				`(mappings run built-ins, files, cluster objects, inline, each in order); to replace the built-in, leave "modelplane-vllm" out of ` + "`builtin`"},
		},
		{
			name: "a built-in copied into a file",
			mappings: []metricmapping.MetricMapping{vllm, mapping("/etc/m/copy.yaml", "copy",
				metricmapping.Entry{From: "vllm:request_queue_time_ms", To: "modelplane_request_queue_seconds", FromUnit: "Milliseconds"})},
			want: []string{`/etc/m/copy.yaml: MetricMapping "copy" metrics[0]: "vllm:request_queue_time_ms" is converted from Milliseconds here and from ` +
				`Milliseconds by builtin/vllm.yaml: MetricMapping "modelplane-vllm" metrics[1]: its values are scaled twice; to replace the built-in, leave "modelplane-vllm" out of ` + "`builtin`"},
		},
		{
			name: "two files, a part",
			mappings: []metricmapping.MetricMapping{
				mapping("a.yaml", "a", metricmapping.Entry{From: "lat", To: "modelplane_requests_total", Part: "Count"}),
				mapping("b.yaml", "b", metricmapping.Entry{From: "lat", To: "modelplane_responses_total", Part: "Count"}),
			},
			want: []string{`b.yaml: MetricMapping "b" metrics[0]: "lat" (part Count) never becomes "modelplane_responses_total": ` +
				`a.yaml: MetricMapping "a" metrics[0] renames it to "modelplane_requests_total" first (mappings run built-ins, files, cluster objects, inline, each in order)`},
		},
		{
			name: "a chain reaches the name again",
			mappings: []metricmapping.MetricMapping{
				mapping("a.yaml", "a", metricmapping.Entry{From: "f", To: "modelplane_x"}, metricmapping.Entry{From: "g", To: "f"}),
				mapping("b.yaml", "b", metricmapping.Entry{From: "f", To: "modelplane_y"}),
			},
		},
		{
			name: "an earlier entry keeps the name",
			mappings: []metricmapping.MetricMapping{
				mapping("a.yaml", "a", metricmapping.Entry{From: "f", To: "f", Labels: []metricmapping.Label{{Name: "engine", Value: ptr("x")}}}),
				mapping("b.yaml", "b", metricmapping.Entry{From: "f", To: "modelplane_y"}),
			},
		},
		{
			name: "the same target twice",
			mappings: []metricmapping.MetricMapping{vllm, mapping("b.yaml", "b",
				metricmapping.Entry{From: "vllm:num_requests_waiting", To: "modelplane_requests_waiting"})},
		},
		{
			name: "the count and the sum of one histogram",
			mappings: []metricmapping.MetricMapping{
				mapping("a.yaml", "a", metricmapping.Entry{From: "lat_ms", To: "modelplane_requests_total", Part: "Count"}),
				mapping("b.yaml", "b", metricmapping.Entry{From: "lat_ms", To: "modelplane_request_seconds_total", Part: "Sum", FromUnit: "Milliseconds"}),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Overlaps(tc.mappings))
		})
	}
}

func ptr(s string) *string { return &s }

// The catalog overrides none of its own entries, whichever built-ins are chosen.
func TestCatalogHasNoOverlaps(t *testing.T) {
	c, err := metricmapping.LoadBuiltin()
	require.NoError(t, err)
	assert.Empty(t, Overlaps(c.Mappings))
}
