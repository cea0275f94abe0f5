// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/scraper/scraperhelper"
)

// testdata/config.yaml, the README's example of every key, loads and validates.
func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	for id, want := range map[string]*Config{
		"dcgm": createDefaultConfig(),
		"dcgm/all": {
			ControllerConfig:   scraperhelper.ControllerConfig{CollectionInterval: 10 * time.Second, InitialDelay: time.Second, Timeout: 3 * time.Second},
			RetryInterval:      2 * time.Minute,
			LibraryPath:        "/usr/local/nvidia/lib64/libnvidia-ml.so.1",
			Profiling:          "off",
			PodResourcesSocket: "/var/lib/kubelet/pod-resources/kubelet.sock",
			Hostname:           "gpu-node-01",
			DeferToExporter:    "127.0.0.1:9400",
			Metrics: map[string]MetricConfig{
				"DCGM_FI_DEV_POWER_VIOLATION": {Enabled: true},
				"DCGM_FI_DEV_SM_CLOCK":        {Enabled: false},
			},
		},
	} {
		sub, err := cm.Sub(id)
		require.NoError(t, err)
		cfg := createDefaultConfig()
		require.NoError(t, sub.Unmarshal(cfg), id)
		require.NoError(t, cfg.Validate(), id)
		assert.Equal(t, want, cfg, id)
	}
}
