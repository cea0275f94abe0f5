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
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestUnused(t *testing.T) {
	for _, c := range []struct {
		name string
		conf map[string]any
		want []string
	}{
		{"all used", map[string]any{
			"exporters": map[string]any{"prometheus": nil, "prometheus_remote_write": map[string]any{"endpoint": "https://x"}},
			"service":   map[string]any{"pipelines": map[string]any{"metrics": map[string]any{"exporters": []any{"prometheus", "prometheus_remote_write"}}}},
		}, nil},
		{"one left out", map[string]any{
			"exporters": map[string]any{"prometheus": nil, "prometheus_remote_write": nil, "otlp_http/vendor": nil},
			"service":   map[string]any{"pipelines": map[string]any{"metrics": map[string]any{"exporters": []any{"prometheus"}}}},
		}, []string{"otlp_http/vendor", "prometheus_remote_write"}},
		{"used by any pipeline", map[string]any{
			"exporters": map[string]any{"prometheus": nil, "debug": nil},
			"service": map[string]any{"pipelines": map[string]any{
				"metrics":        map[string]any{"exporters": []any{"prometheus"}},
				"metrics/debug":  map[string]any{"exporters": []any{"debug"}},
				"metrics/broken": nil,
			}},
		}, nil},
		{"no pipelines", map[string]any{"exporters": map[string]any{"debug": nil}}, []string{"debug"}},
		{"no exporters", map[string]any{"service": map[string]any{"pipelines": map[string]any{"metrics": nil}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Unused(confmap.NewFromStringMap(c.conf)))
		})
	}
}

// The converter warns once per unused exporter, naming it, and changes nothing.
func TestUnusedExportersWarn(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	raw := map[string]any{
		"exporters": map[string]any{"prometheus": nil, "prometheus_remote_write": map[string]any{"endpoint": "https://x"}},
		"service":   map[string]any{"pipelines": map[string]any{"metrics": map[string]any{"exporters": []any{"prometheus"}}}},
	}
	conf := confmap.NewFromStringMap(raw)
	require.NoError(t, newChecker(unusedExporters, zap.New(core), nil).Convert(context.Background(), conf))
	assert.Equal(t, raw, conf.ToStringMap())
	require.Equal(t, 1, logs.Len())
	e := logs.All()[0]
	assert.Equal(t, zap.WarnLevel, e.Level)
	assert.Contains(t, e.Message, "Exporter configured but in no pipeline: nothing is sent to it.")
	assert.Equal(t, map[string]any{"exporter": "prometheus_remote_write"}, e.ContextMap())
	// The lines for validate go to its notes.
	var notes strings.Builder
	require.NoError(t, newChecker(unusedExporters, zap.NewNop(), &notes).Convert(context.Background(), conf))
	assert.Equal(t, "warning: exporters::prometheus_remote_write: in no pipeline: nothing is sent to it. A list in a later --config replaces the earlier one's, so overrides go last (--config modelplane:default --config modelplane:remote-write), or one more --config names them all: --config 'yaml:service::pipelines::metrics::exporters: [prometheus, prometheus_remote_write]'\n", notes.String())
}

// With more than one pipeline there is no one list to give: the advice is the order.
func TestAdviceWithPipelines(t *testing.T) {
	conf := confmap.NewFromStringMap(map[string]any{
		"exporters": map[string]any{"prometheus": nil, "otlp_http": nil, "debug": nil},
		"service": map[string]any{"pipelines": map[string]any{
			"metrics":       map[string]any{"exporters": []any{"prometheus"}},
			"metrics/debug": map[string]any{"exporters": []any{"debug"}},
		}},
	})
	assert.Equal(t, why, advice(conf, Unused(conf)))
}
