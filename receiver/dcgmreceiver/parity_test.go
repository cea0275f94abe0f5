//go:build cgo

package dcgmreceiver

import (
	"context"
	"fmt"
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

	"github.com/modelplaneai/otelcol-modelplane/internal/scrapetest"
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
	assert.Equal(t, want, got)
	assert.Len(t, got, 14, "7 GPU targets x 2 GPUs")
}
