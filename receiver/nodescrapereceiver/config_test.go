// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap/confmaptest"
)

func load(t *testing.T, id string) (*Config, error) {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub(id)
	require.NoError(t, err)
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	if err := sub.Unmarshal(cfg); err != nil {
		return nil, err
	}
	return cfg, cfg.Validate()
}

func TestConfigIsPrometheus(t *testing.T) {
	cfg, err := load(t, "node_scrape")
	require.NoError(t, err)
	require.Len(t, cfg.promConfig.ScrapeConfigs, 1)
	job := cfg.promConfig.ScrapeConfigs[0]
	assert.Equal(t, "vllm", job.JobName)
	assert.Equal(t, 15*time.Second, time.Duration(job.ScrapeInterval))
	assert.Equal(t, 10*time.Second, time.Duration(job.ScrapeTimeout), "Prometheus' default timeout")
	assert.EqualValues(t, 20000, job.SampleLimit, "the global limit, as Prometheus applies it")
	assert.EqualValues(t, 16<<20, job.BodySizeLimit)
	assert.Len(t, job.MetricRelabelConfigs, 2)
}

func TestConfigErrors(t *testing.T) {
	for id, want := range map[string]string{
		"node_scrape/unknownkey":  "'collection_interval' is not a setting of the node_scrape receiver",
		"node_scrape/nojobs":      "config::scrape_configs: no scrape job",
		"node_scrape/badfield":    `not a valid duration string: "fifteen"`,
		"node_scrape/unsupported": "config::scrape_configs::vllm::label_limit",
	} {
		t.Run(id, func(t *testing.T) {
			_, err := load(t, id)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
}
