package modelplanemapping

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
)

func sumOf(t *testing.T, tel *componenttest.Telemetry, name string) int64 {
	t.Helper()
	m, err := tel.GetMetric(name)
	require.NoError(t, err, name)
	var total int64
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, dp := range d.DataPoints {
			total += dp.Value
		}
	case metricdata.Gauge[int64]:
		for _, dp := range d.DataPoints {
			total += dp.Value
		}
	}
	return total
}

// Self-telemetry counts points in, mapped and dropped, reloads and the active mappings.
func TestTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := processortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()

	cfg := createDefaultConfig()
	p, err := NewFactory().CreateMetrics(context.Background(), set, cfg, consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, p.Shutdown(context.Background())) }()

	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for _, n := range []string{"vllm:num_requests_waiting", "process_open_fds"} {
		m := ms.AppendEmpty()
		m.SetName(n)
		dps := m.SetEmptyGauge().DataPoints()
		dps.AppendEmpty().SetIntValue(1)
		dps.AppendEmpty().SetIntValue(2)
	}
	require.NoError(t, p.ConsumeMetrics(context.Background(), md))

	assert.Equal(t, int64(4), sumOf(t, tel, "otelcol_processor_modelplane_mapping_datapoints_in"))
	assert.Equal(t, int64(2), sumOf(t, tel, "otelcol_processor_modelplane_mapping_datapoints_mapped"))
	assert.Equal(t, int64(2), sumOf(t, tel, "otelcol_processor_modelplane_mapping_datapoints_dropped"))
	assert.Equal(t, int64(1), sumOf(t, tel, "otelcol_processor_modelplane_mapping_reloads"))
	assert.Equal(t, int64(6), sumOf(t, tel, "otelcol_processor_modelplane_mapping_mappings_active"))
}
