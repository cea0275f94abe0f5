// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package pipelines

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/confmap"
)

func TestPipelines(t *testing.T) {
	conf := confmap.NewFromStringMap(map[string]any{"service": map[string]any{"pipelines": map[string]any{
		"traces":        map[string]any{"receivers": []any{"otlp"}, "exporters": []any{"debug"}},
		"metrics/b":     map[string]any{"receivers": []any{"prometheus/b"}, "processors": []any{"batch"}, "exporters": []any{"prometheus"}},
		"metrics":       map[string]any{"receivers": []any{"prometheus", 7}, "processors": []any{"modelplane_mapping"}},
		"metricsextra":  nil,
		"metrics/empty": "not a map",
	}}})
	assert.Equal(t, []Pipeline{
		{ID: "metrics", Receivers: []string{"prometheus"}, Processors: []string{"modelplane_mapping"}, Exporters: []string{}},
		{ID: "metrics/b", Receivers: []string{"prometheus/b"}, Processors: []string{"batch"}, Exporters: []string{"prometheus"}},
		{ID: "metrics/empty", Receivers: []string{}, Processors: []string{}, Exporters: []string{}},
	}, Metrics(conf))
	assert.Len(t, All(conf), 5)
	assert.Empty(t, All(confmap.New()))
}

func TestIsType(t *testing.T) {
	assert.True(t, IsType("prometheus", "prometheus"))
	assert.True(t, IsType("prometheus/engines", "prometheus"))
	assert.False(t, IsType("prometheus_remote_write", "prometheus"))
	assert.False(t, IsType("prometheusremotewrite/x", "prometheus"))
}

func TestIsTrue(t *testing.T) {
	for v, want := range map[any]bool{true: true, false: false, "true": true, "TRUE": true, "1": true, "false": false, "yes": false, "": false, 1: false} {
		assert.Equal(t, want, IsTrue(v), "%#v", v)
	}
	assert.False(t, IsTrue(nil))
}
