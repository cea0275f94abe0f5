// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadatatest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// Self-telemetry counts points in, mapped and dropped, refused conversions by reason, reloads
// by result and the active mappings, as metadata.yaml declares them, each labelled with the
// processor's ID.
func TestTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })

	cfg := createDefaultConfig()
	// A part can only be taken from a histogram or summary: asked of a gauge, the conversion
	// is refused and the metric dropped.
	cfg.Mappings = []InlineMapping{{Name: "refused", Metrics: []metricmapping.Entry{
		{From: "queue_depth", To: "modelplane_queue_depth_total", Part: metricmapping.PartCount},
	}}}
	p, err := NewFactory().CreateMetrics(context.Background(), metadatatest.NewSettings(tel), cfg, consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, p.Shutdown(context.Background())) }()

	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for _, n := range []string{"vllm:num_requests_waiting", "process_open_fds", "queue_depth"} {
		m := ms.AppendEmpty()
		m.SetName(n)
		dps := m.SetEmptyGauge().DataPoints()
		dps.AppendEmpty().SetIntValue(1)
		dps.AppendEmpty().SetIntValue(2)
	}
	require.NoError(t, p.ConsumeMetrics(context.Background(), md))

	// Every point carries the processor's ID, so two modelplane_mapping processors report apart.
	points := func(v int64, attrs ...attribute.KeyValue) []metricdata.DataPoint[int64] {
		attrs = append(attrs, attribute.String("processor", "modelplane_mapping"))
		return []metricdata.DataPoint[int64]{{Value: v, Attributes: attribute.NewSet(attrs...)}}
	}
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metadatatest.AssertEqualProcessorModelplaneMappingDatapointsIn(t, tel, points(6), opts...)
	// queue_depth is read by a mapping, so its points count as mapped; with no part to take
	// from it, it keeps its own name and is dropped as not modelplane_*, with
	// process_open_fds. The refusal is counted once, per metric, by reason.
	metadatatest.AssertEqualProcessorModelplaneMappingDatapointsMapped(t, tel, points(4), opts...)
	metadatatest.AssertEqualProcessorModelplaneMappingDatapointsDropped(t, tel, points(4), opts...)
	metadatatest.AssertEqualProcessorModelplaneMappingConversionsRefused(t, tel,
		points(1, attribute.String("reason", "part_of_non_histogram")), opts...)
	metadatatest.AssertEqualProcessorModelplaneMappingReloads(t, tel, points(1, attribute.String("result", "ok")), opts...)
	// The seven built-ins on by default and the inline mapping.
	metadatatest.AssertEqualProcessorModelplaneMappingMappingsActive(t, tel, points(8), opts...)
}

// Two modelplane_mapping processors in one collector report apart, by their IDs.
func TestTelemetryPerProcessor(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	consume := func(name string, points int) {
		set := metadatatest.NewSettings(tel)
		set.ID = component.NewIDWithName(metadata.Type, name)
		p, err := NewFactory().CreateMetrics(context.Background(), set, createDefaultConfig(), consumertest.NewNop())
		require.NoError(t, err)
		require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
		defer func() { require.NoError(t, p.Shutdown(context.Background())) }()
		md := pmetric.NewMetrics()
		dps := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty().SetEmptyGauge().DataPoints()
		for i := 0; i < points; i++ {
			dps.AppendEmpty().SetIntValue(int64(i))
		}
		require.NoError(t, p.ConsumeMetrics(context.Background(), md))
	}
	consume("engines", 3)
	consume("gpus", 5)
	metadatatest.AssertEqualProcessorModelplaneMappingDatapointsIn(t, tel, []metricdata.DataPoint[int64]{
		{Value: 3, Attributes: attribute.NewSet(attribute.String("processor", "modelplane_mapping/engines"))},
		{Value: 5, Attributes: attribute.NewSet(attribute.String("processor", "modelplane_mapping/gpus"))},
	}, metricdatatest.IgnoreTimestamp())
}

// gaugeValue is the value of the integer gauge name, -1 while it has none.
func gaugeValue(tel *componenttest.Telemetry, name string) int64 {
	m, err := tel.GetMetric(name)
	if err != nil {
		return -1
	}
	return m.Data.(metricdata.Gauge[int64]).DataPoints[0].Value
}

// A scrape whose up is 0 is counted by job: up itself is dropped (not modelplane_*), so this
// count is where a target that stopped answering, or went over a scrape limit, shows. A
// scrape that succeeded, and the marker that ends a gone target's up, are not failures.
func TestFailedScrapesCounted(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	p, err := NewFactory().CreateMetrics(context.Background(), metadatatest.NewSettings(tel), createDefaultConfig(), consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, p.Shutdown(context.Background())) }()

	scrape := func(md pmetric.Metrics, job string, up float64, ended bool) {
		rm := md.ResourceMetrics().AppendEmpty()
		rm.Resource().Attributes().PutStr("service.name", job)
		m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
		m.SetName("up")
		dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
		dp.SetDoubleValue(up)
		if ended {
			dp.SetFlags(pmetric.DefaultDataPointFlags.WithNoRecordedValue(true))
		}
	}
	for range 2 {
		md := pmetric.NewMetrics()
		scrape(md, "vllm", 0, false)
		scrape(md, "sglang", 1, false)
		scrape(md, "dcgm-exporter", 0, true)
		require.NoError(t, p.ConsumeMetrics(context.Background(), md))
	}
	metadatatest.AssertEqualProcessorModelplaneMappingScrapesFailed(t, tel, []metricdata.DataPoint[int64]{{
		Value:      2,
		Attributes: attribute.NewSet(attribute.String("processor", "modelplane_mapping"), attribute.String("scrape_job", "vllm")),
	}}, metricdatatest.IgnoreTimestamp())
}
