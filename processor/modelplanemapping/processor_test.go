// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
)

var update = flag.Bool("update", false, "rewrite the output.yaml of every golden case")

// loadConfig reads a processor config file into a validated Config.
func loadConfig(t testing.TB, path string) *Config {
	t.Helper()
	conf, err := confmaptest.LoadConf(path)
	require.NoError(t, err)
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	require.NoError(t, conf.Unmarshal(cfg))
	require.NoError(t, cfg.Validate())
	return cfg
}

// newTestProcessor starts a processor with cfg feeding a sink, and stops it at the end.
func newTestProcessor(t testing.TB, cfg *Config) (processor.Metrics, *consumertest.MetricsSink) {
	t.Helper()
	sink := new(consumertest.MetricsSink)
	p, err := NewFactory().CreateMetrics(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, p.Shutdown(context.Background())) })
	return p, sink
}

func runOnce(t testing.TB, cfg *Config, in pmetric.Metrics) pmetric.Metrics {
	t.Helper()
	p, sink := newTestProcessor(t, cfg)
	require.NoError(t, p.ConsumeMetrics(context.Background(), in))
	all := sink.AllMetrics()
	require.Len(t, all, 1)
	return all[0]
}

// TestGolden runs every case under testdata/<case>/: config.yaml, input.yaml, output.yaml.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, in := range dirs {
		dir := filepath.Dir(in)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg := loadConfig(t, filepath.Join(dir, "config.yaml"))
			input, err := golden.ReadMetrics(in)
			require.NoError(t, err)
			got := runOnce(t, cfg, input)
			expectedPath := filepath.Join(dir, "output.yaml")
			if *update {
				require.NoError(t, golden.WriteMetricsToFile(expectedPath, got, golden.SkipMetricTimestampNormalization()))
			}
			expected, err := golden.ReadMetrics(expectedPath)
			require.NoError(t, err)
			require.NoError(t, pmetrictest.CompareMetrics(expected, got, pmetrictest.IgnoreResourceMetricsOrder(), pmetrictest.IgnoreScopeMetricsOrder(),
				pmetrictest.IgnoreMetricsOrder(), pmetrictest.IgnoreMetricDataPointsOrder()))
		})
	}
}

func processortestSettings() processor.Settings { return processortest.NewNopSettings(metadata.Type) }
