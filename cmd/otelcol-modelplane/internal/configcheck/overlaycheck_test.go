// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
)

func convertOverlay(t *testing.T, conf map[string]any) error {
	t.Helper()
	return newChecker(overlayAlone, nil, nil).Convert(context.Background(), confmap.NewFromStringMap(conf))
}

// The embedded overlays alone fail with an error that names the default and its place.
func TestAnOverlayAloneIsRefused(t *testing.T) {
	for _, name := range []string{"remote-write", "otlp"} {
		t.Run(name, func(t *testing.T) {
			conf, err := confmap.NewRetrievedFromYAML(defaultconfig.Documents[name])
			require.NoError(t, err)
			m, err := conf.AsRaw()
			require.NoError(t, err)
			err = convertOverlay(t, m.(map[string]any))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "service::pipelines::metrics: no receivers")
			assert.Contains(t, err.Error(), "name prometheus, which no --config configures")
			assert.Contains(t, err.Error(), "--config modelplane:default --config modelplane:"+name)
		})
	}
}

// Anything else passes: the collector's own checks speak for a pipeline without receivers
// whose exporters exist, and a configuration with receivers is not an overlay alone.
func TestOtherConfigurationsPass(t *testing.T) {
	for _, c := range []struct {
		name string
		conf map[string]any
	}{
		{"receivers", map[string]any{
			"receivers": map[string]any{"otlp": nil},
			"service":   map[string]any{"pipelines": map[string]any{"metrics": map[string]any{"exporters": []any{"prometheus"}}}},
		}},
		{"exporters configured", map[string]any{
			"exporters": map[string]any{"debug": nil},
			"service":   map[string]any{"pipelines": map[string]any{"metrics": map[string]any{"exporters": []any{"debug"}}}},
		}},
		{"empty", map[string]any{}},
	} {
		assert.NoError(t, convertOverlay(t, c.conf), c.name)
	}
}
