// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

// convert runs the converter on one metrics pipeline: the processors and exporters named,
// with the configs given.
func convertIdentity(t *testing.T, processors, exporters map[string]any, pipeline map[string]any) error {
	t.Helper()
	conf := confmap.NewFromStringMap(map[string]any{
		"processors": processors,
		"exporters":  exporters,
		"service":    map[string]any{"pipelines": pipeline},
	})
	return newChecker(identityLabels, nil, nil).Convert(context.Background(), conf)
}

func metrics(processors []any, exporters ...any) map[string]any {
	return map[string]any{"metrics": map[string]any{"receivers": []any{"prometheus"}, "processors": processors, "exporters": exporters}}
}

var mapping = map[string]any{"modelplane_mapping": nil}

const allKeys = "cluster, namespace, deployment, replica, engine, role, node"

func TestIdentityLabels(t *testing.T) {
	for _, c := range []struct {
		name       string
		processors map[string]any
		exporter   map[string]any
		want       string // "" for none
	}{
		{"every attribute", mapping, map[string]any{"resource_constant_labels": map[string]any{"included": []any{"*"}}}, ""},
		{"the deprecated conversion", mapping, map[string]any{"resource_to_telemetry_conversion": map[string]any{"enabled": true}}, ""},
		{"the deprecated conversion, as text", mapping, map[string]any{"resource_to_telemetry_conversion": map[string]any{"enabled": "true"}}, ""},
		{"all but the service ones", mapping, map[string]any{"resource_constant_labels": map[string]any{"excluded": []any{"service.*"}}}, ""},
		{"each key, by wildcards", mapping, map[string]any{"resource_constant_labels": map[string]any{"included": []any{"cl*", "namespace", "deployment", "replica", "engine", "r?le", "node"}}}, ""},
		{"identity off", map[string]any{"modelplane_mapping": map[string]any{"identity": map[string]any{"enabled": false}}}, nil, ""},
		{"keys of one's own, carried", map[string]any{"modelplane_mapping": map[string]any{"identity": map[string]any{"keys": []any{"cluster", "service.name"}}}},
			map[string]any{"resource_constant_labels": map[string]any{"included": []any{"cluster"}}}, ""},

		{"nothing said", mapping, map[string]any{"endpoint": "https://mimir.example.com/api/v1/push"},
			`exporters::prometheus_remote_write: would send the series of processors::modelplane_mapping without the identity labels ` + allKeys + `, resource attributes this exporter makes labels only where resource_constant_labels says so: two replicas' series would arrive as one. Set exporters::prometheus_remote_write::resource_constant_labels: {included: ["*"]}`},
		{"the conversion off", mapping, map[string]any{"resource_to_telemetry_conversion": map[string]any{"enabled": false}},
			`exporters::prometheus_remote_write: would send the series of processors::modelplane_mapping without the identity labels ` + allKeys + `, resource attributes this exporter makes labels only where resource_constant_labels says so: two replicas' series would arrive as one. Set exporters::prometheus_remote_write::resource_constant_labels: {included: ["*"]}`},
		{"some included", mapping, map[string]any{"resource_constant_labels": map[string]any{"included": []any{"cluster", "namespace"}}},
			`exporters::prometheus_remote_write: would send the series of processors::modelplane_mapping without the identity labels deployment, replica, engine, role, node, resource attributes this exporter makes labels only where resource_constant_labels says so: two replicas' series would arrive as one. Set exporters::prometheus_remote_write::resource_constant_labels: {included: ["*"]}`},
		{"one excluded", mapping, map[string]any{"resource_constant_labels": map[string]any{"included": []any{"*"}, "excluded": []any{"replica"}}},
			`exporters::prometheus_remote_write: would send the series of processors::modelplane_mapping without the identity labels replica, resource attributes this exporter makes labels only where resource_constant_labels says so: two replicas' series would arrive as one. Set exporters::prometheus_remote_write::resource_constant_labels: {included: ["*"]}`},
		{"keys of one's own, one left out", map[string]any{"modelplane_mapping": map[string]any{"identity": map[string]any{"keys": []any{"cluster", "gpu_pool"}}}},
			map[string]any{"resource_constant_labels": map[string]any{"included": []any{"cluster"}}},
			`exporters::prometheus_remote_write: would send the series of processors::modelplane_mapping without the identity labels gpu_pool, resource attributes this exporter makes labels only where resource_constant_labels says so: two replicas' series would arrive as one. Set exporters::prometheus_remote_write::resource_constant_labels: {included: ["*"]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := convertIdentity(t, c.processors, map[string]any{"prometheus_remote_write": c.exporter}, metrics([]any{"modelplane_mapping"}, "prometheus_remote_write"))
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.EqualError(t, err, c.want)
		})
	}
}

// The pull endpoint is checked as remote write is, under either spelling of remote write;
// OTLP exporters carry resource attributes as they are, and a pipeline without the mapping
// processor has no identity to keep.
func TestWhichExporters(t *testing.T) {
	bare := map[string]any{}
	err := convertIdentity(t, mapping, map[string]any{"prometheus": bare, "prometheusremotewrite/mimir": bare, "otlp_http": bare},
		metrics([]any{"batch", "modelplane_mapping"}, "prometheus", "prometheusremotewrite/mimir", "otlp_http"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exporters::prometheus: would send")
	assert.Contains(t, err.Error(), "exporters::prometheusremotewrite/mimir: would send")
	assert.NotContains(t, err.Error(), "otlp_http")

	assert.NoError(t, convertIdentity(t, map[string]any{"batch": nil}, map[string]any{"prometheus_remote_write": bare}, metrics([]any{"batch"}, "prometheus_remote_write")))
}

// An exporter that two mapped pipelines feed is named once.
func TestNamedOnce(t *testing.T) {
	conf := confmap.NewFromStringMap(map[string]any{
		"processors": map[string]any{"modelplane_mapping": nil, "modelplane_mapping/otlp": map[string]any{"otlp_names": true}},
		"exporters":  map[string]any{"prometheus_remote_write": map[string]any{}},
		"service": map[string]any{"pipelines": map[string]any{
			"metrics":      map[string]any{"processors": []any{"modelplane_mapping"}, "exporters": []any{"prometheus_remote_write"}},
			"metrics/otlp": map[string]any{"processors": []any{"modelplane_mapping/otlp"}, "exporters": []any{"prometheus_remote_write"}},
		}},
	})
	err := newChecker(identityLabels, nil, nil).Convert(context.Background(), conf)
	require.Error(t, err)
	assert.Equal(t, 1, strings.Count(err.Error(), "exporters::prometheus_remote_write: would send"))
}
