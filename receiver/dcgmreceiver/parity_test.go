// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// mapped runs md through the mapping processor with the built-in catalog.
func mapped(t *testing.T, md pmetric.Metrics) pmetric.Metrics {
	f := modelplanemapping.NewFactory()
	cfg := f.CreateDefaultConfig().(*modelplanemapping.Config)
	cfg.Identity.Enabled = false
	sink := new(consumertest.MetricsSink)
	p, err := f.CreateMetrics(context.Background(), processortest.NewNopSettings(f.Type()), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, p.Shutdown(context.Background())) }()
	require.NoError(t, p.ConsumeMetrics(context.Background(), md))
	require.Len(t, sink.AllMetrics(), 1)
	return sink.AllMetrics()[0]
}

// gpuSeries renders modelplane_gpu_* and modelplane_energy_joules_total points by name,
// type, point attributes and value.
func gpuSeries(md pmetric.Metrics) []string {
	var out []string
	for _, p := range points(md) {
		if !strings.HasPrefix(p.name, "modelplane_gpu_") && p.name != "modelplane_energy_joules_total" {
			continue
		}
		kv := make([]string, 0, len(p.attrs))
		for k, v := range p.attrs {
			kv = append(kv, fmt.Sprintf("%s=%v", k, v))
		}
		sort.Strings(kv)
		out = append(out, fmt.Sprintf("%s counter=%v {%s} %v", p.name, p.counter, strings.Join(kv, ","), p.value))
	}
	sort.Strings(out)
	return out
}

// For the GPU state of testdata/exposition/dcgm-exporter.prom, the receiver and the scraped
// dcgm-exporter page give the same modelplane_gpu_* and energy series after the built-in
// mappings.
func TestParityWithDCGMExporter(t *testing.T) {
	exporter, err := scrapetest.Scrape(context.Background(), []scrapetest.Target{{Job: "dcgm-exporter", File: "dcgm-exporter.prom"}})
	require.NoError(t, err)
	want := gpuSeries(mapped(t, exporter))

	node := newFakeNode(h100State(), l4State())
	sock := startKubelet(t,
		pod("ml-training", "llama-finetune-7d9f8b6c5d-x2kqp", "trainer", "nvidia.com/gpu", h100State().UUID),
		pod("inference", "vllm-l4-5c7d9f8b6d-q4zxm", "vllm", "nvidia.com/gpu", l4State().UUID),
	)
	cfg := testConfig(t)
	cfg.PodResourcesSocket = sock
	c, _ := newTestCollector(t, cfg, node)
	_, _, err = c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	md, _, err := c.collect(context.Background(), time.Now()) // the second has GPM ratios
	require.NoError(t, err)
	got := gpuSeries(mapped(t, md))

	require.NotEmpty(t, want)
	// Beyond dcgm-exporter's default list, the receiver reads thermal throttling and ECC
	// errors, which the shipped alerts need.
	beyond := func(series string) bool {
		return strings.HasPrefix(series, "modelplane_gpu_thermal_throttle_seconds_total ") || strings.HasPrefix(series, "modelplane_gpu_ecc_errors_total ")
	}
	assert.Equal(t, want, slices.DeleteFunc(slices.Clone(got), beyond))
	assert.Len(t, got, 20, "7 GPU targets x 2 GPUs, and thermal throttling and two ECC types x 2 GPUs")
}

// pageFields maps each DCGM_* metric of a page, per GPU, to its value.
func pageFields(md pmetric.Metrics) map[string]float64 {
	out := map[string]float64{}
	for _, p := range points(md) {
		if strings.HasPrefix(p.name, "DCGM_FI_") {
			out[fmt.Sprintf("%s gpu=%v", p.name, p.attrs["gpu"])] = p.value
		}
	}
	return out
}

// Before any mapping: for the GPU state of the shared dcgm-exporter page, the receiver's
// default fields are the page's metrics, per GPU and with the page's values, except the
// page's metrics this receiver does not emit, each named here with why.
func TestSurfaceOfDCGMExporter(t *testing.T) {
	exporter, err := scrapetest.Scrape(context.Background(), []scrapetest.Target{{Job: "dcgm-exporter", File: "dcgm-exporter.prom"}})
	require.NoError(t, err)
	page := pageFields(exporter)

	c, _ := newTestCollector(t, testConfig(t), newFakeNode(h100State(), l4State()))
	_, _, err = c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	md, _, err := c.collect(context.Background(), time.Now()) // the second has GPM readings
	require.NoError(t, err)
	ours := pageFields(md)

	notEmitted := map[string]string{
		"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL": "not yet: the NVLink bandwidth counter; DCGM_FI_PROF_NVLINK_*_BYTES give the rates (README)",
		"DCGM_FI_DEV_VGPU_LICENSE_STATUS":    "vGPU guests only; NVML reports it through the vGPU API, not read",
		"DCGM_FI_DEV_XID_ERRORS":             "opt-in here: it keeps a goroutine waiting on an NVML event set (TestXIDEvents)",
	}
	skipped := 0
	for key, want := range page {
		name, _, _ := strings.Cut(key, " ")
		if why, ok := notEmitted[name]; ok {
			assert.NotContains(t, ours, key, why)
			skipped++
			continue
		}
		if assert.Contains(t, ours, key, "on the page, not from the receiver") {
			assert.Equal(t, want, ours[key], key)
		}
	}
	// Not in dcgm-exporter's default list; on here for the shipped alerts.
	beyond := map[string]bool{"DCGM_FI_DEV_THERMAL_VIOLATION": true, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL": true, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": true}
	added := 0
	for key := range ours {
		if name, _, _ := strings.Cut(key, " "); beyond[name] {
			added++
			continue
		}
		assert.Contains(t, page, key, "from the receiver, not on the page")
	}
	assert.Equal(t, 6, added, "three fields x 2 GPUs")
	assert.Len(t, ours, len(page)-skipped+added)
	assert.Greater(t, len(ours), 40, "both GPUs, every default field")
}
