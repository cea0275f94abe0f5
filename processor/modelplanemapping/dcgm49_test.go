// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

// dcgm49Names is what dcgm-exporter 4.9 calls the fields the catalog maps from 4.x
// (testdata/anchor/metric-surface.md); the driver label becomes DCGM_FI_SYSTEM_DRIVER_VERSION.
var dcgm49Names = map[string]string{
	"DCGM_FI_DEV_FB_USED":                  "DCGM_FI_DEV_FB_USED_BYTES",
	"DCGM_FI_PROF_GR_ENGINE_ACTIVE":        "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO",
	"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE":      "DCGM_FI_PROF_TENSOR_UTIL_RATIO",
	"DCGM_FI_PROF_DRAM_ACTIVE":             "DCGM_FI_PROF_DRAM_UTIL_RATIO",
	"DCGM_FI_DEV_GPU_TEMP":                 "DCGM_FI_DEV_GPU_TEMP_CELSIUS",
	"DCGM_FI_DEV_POWER_USAGE":              "DCGM_FI_DEV_BOARD_POWER_WATTS",
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": "DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL",
}

// dcgm49Page rewrites the shared dcgm-exporter 4.x page as 4.9 writes the same readings:
// the mapped fields under their new names, memory in bytes instead of MiB, energy in joules
// instead of millijoules (as exact decimals), the new driver label; the other fields are left
// out, since their 4.9 names are not known here.
func dcgm49Page(t *testing.T, page []byte) []byte {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(string(page), "\n"), "\n") {
		fields := strings.Fields(line)
		name := ""
		switch {
		case strings.HasPrefix(line, "# HELP ") || strings.HasPrefix(line, "# TYPE "):
			name = fields[2]
		case line != "" && line[0] != '#':
			name = line[:strings.IndexAny(line, "{ ")]
		}
		to, mapped := dcgm49Names[name]
		if !mapped {
			continue
		}
		line = strings.Replace(line, name, to, 1)
		line = strings.ReplaceAll(line, "DCGM_FI_DRIVER_VERSION=", "DCGM_FI_SYSTEM_DRIVER_VERSION=")
		line = strings.NewReplacer("(in MiB)", "(in bytes)", "(in mJ)", "(in J)").Replace(line)
		if line[0] != '#' {
			head, value := line[:strings.LastIndexByte(line, ' ')+1], line[strings.LastIndexByte(line, ' ')+1:]
			v, err := strconv.ParseInt(value, 10, 64)
			switch name {
			case "DCGM_FI_DEV_FB_USED":
				require.NoError(t, err, line)
				value = strconv.FormatInt(v*1024*1024, 10)
			case "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION":
				require.NoError(t, err, line)
				value = strconv.FormatInt(v/1000, 10) + "." + strconv.FormatInt(1000+v%1000, 10)[1:]
			}
			line = head + value
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// A node that upgrades dcgm-exporter from 4.x to 4.9 keeps its modelplane_gpu_* series: the
// same names, labels and values from the renamed fields in their new units, so no series
// ends and no dashboard breaks at the upgrade.
func TestDCGM49PageContinuesTheSeries(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(scrapetest.ExpositionDir(), "dcgm-exporter.prom"))
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "dcgm-exporter-4.9.prom")
	require.NoError(t, os.WriteFile(file, dcgm49Page(t, page), 0o600))
	target := func(file string) []scrapetest.Target {
		return []scrapetest.Target{{Job: "dcgm-exporter", File: file, Labels: map[string]string{"node": "gpu-node-01"}}}
	}
	old, err := scrapetest.Scrape(context.Background(), target("dcgm-exporter.prom"))
	require.NoError(t, err)
	renamed, err := scrapetest.Scrape(context.Background(), target(file))
	require.NoError(t, err)

	cfg := createDefaultConfig() // the whole built-in catalog, as the embedded default runs it
	require.NoError(t, cfg.Validate())
	mapped := func(md pmetric.Metrics) map[string]string {
		out := map[string]string{}
		for k, v := range series(runOnce(t, cfg, md), exact) {
			out[instanceID.ReplaceAllString(k, "")] = v
		}
		return out
	}
	want, got := mapped(old), mapped(renamed)
	// The 4.x page has more fields than the seven renamed ones; compare those seven targets.
	targets := map[string]bool{}
	for _, to := range []string{"modelplane_gpu_memory_used_bytes", "modelplane_gpu_compute_active_ratio",
		"modelplane_gpu_tensor_active_ratio", "modelplane_gpu_memory_bandwidth_ratio",
		"modelplane_gpu_temperature_celsius", "modelplane_gpu_power_watts", "modelplane_energy_joules_total"} {
		targets[to] = true
	}
	for k := range want {
		if !targets[strings.Fields(k)[1]] {
			delete(want, k)
		}
	}
	require.Len(t, want, 14, "seven targets for each of the page's two GPUs")
	for _, d := range compareSeries(want, got) {
		t.Error(d)
	}
	for k := range got {
		assert.Contains(t, k, "DCGM_FI_DRIVER_VERSION=580.95.05", "the 4.x driver label, as before the upgrade")
	}
}
