//go:build cgo

package dcgmreceiver

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
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
// point attributes and value.
func gpuSeries(md pmetric.Metrics) []string {
	var out []string
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		sms := md.ResourceMetrics().At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				if !strings.HasPrefix(m.Name(), "modelplane_gpu_") && m.Name() != "modelplane_energy_joules_total" {
					continue
				}
				var dps pmetric.NumberDataPointSlice
				if m.Type() == pmetric.MetricTypeSum {
					dps = m.Sum().DataPoints()
				} else {
					dps = m.Gauge().DataPoints()
				}
				for d := 0; d < dps.Len(); d++ {
					var kv []string
					dps.At(d).Attributes().Range(func(k string, v pcommon.Value) bool {
						kv = append(kv, k+"="+v.AsString())
						return true
					})
					sort.Strings(kv)
					out = append(out, m.Name()+" "+m.Type().String()+"{"+strings.Join(kv, ",")+"} "+pcommon.NewValueDouble(dps.At(d).DoubleValue()).AsString())
				}
			}
		}
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
	_, err = c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	md, err := c.collect(context.Background(), time.Now()) // the second has GPM ratios
	require.NoError(t, err)
	got := gpuSeries(mapped(t, md))

	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
	assert.Len(t, got, 14, "7 GPU targets x 2 GPUs")
}
