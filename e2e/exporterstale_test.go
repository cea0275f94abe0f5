// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// When a scrape ends several series of one metric at once (a stopped vLLM's responses by
// finish reason, a dcgm-exporter's GPUs), the exporter, really started, stops serving every
// one of them. Releases before contrib v0.165 stopped serving one and kept the others for
// metric_expiration, five minutes (open-telemetry/opentelemetry-collector-contrib#51289).
func TestExporterEndsEveryStaleSeriesOfAMetric(t *testing.T) {
	for _, typ := range []pmetric.MetricType{pmetric.MetricTypeGauge, pmetric.MetricTypeSum, pmetric.MetricTypeHistogram, pmetric.MetricTypeSummary} {
		t.Run(typ.String(), func(t *testing.T) {
			addr := freeport.Addr(t)
			f := prometheusexporter.NewFactory()
			cfg := f.CreateDefaultConfig().(*prometheusexporter.Config)
			cfg.ServerConfig.NetAddr.Endpoint = addr
			exp, err := f.CreateMetrics(context.Background(), exportertest.NewNopSettings(f.Type()), cfg)
			require.NoError(t, err)
			require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
			t.Cleanup(func() { require.NoError(t, exp.Shutdown(context.Background())) })

			reasons := []string{"stop", "length", "abort"}
			require.NoError(t, exp.ConsumeMetrics(context.Background(), oneMetric(typ, reasons, false)))
			page := scrape(t, addr)
			for _, r := range reasons {
				require.Contains(t, page, `reason="`+r+`"`, "every series served")
			}

			// The same three series again, now all stale, and a fourth that is live.
			md := oneMetric(typ, reasons, true)
			live := oneMetric(typ, []string{"repetition"}, false)
			live.ResourceMetrics().MoveAndAppendTo(md.ResourceMetrics())
			require.NoError(t, exp.ConsumeMetrics(context.Background(), md))
			page = scrape(t, addr)
			for _, r := range reasons {
				assert.NotContains(t, page, `reason="`+r+`"`, "a stale series is still served")
			}
			assert.Contains(t, page, `reason="repetition"`)
		})
	}
}

// oneMetric is one resource with one metric "responses" of type typ holding one point per
// reason, each marked stale (no recorded value) or holding a value.
func oneMetric(typ pmetric.MetricType, reasons []string, stale bool) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "vllm")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("responses")
	switch typ {
	case pmetric.MetricTypeGauge:
		m.SetEmptyGauge()
	case pmetric.MetricTypeSum:
		m.SetEmptySum().SetIsMonotonic(true)
		m.Sum().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	case pmetric.MetricTypeHistogram:
		m.SetEmptyHistogram().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	case pmetric.MetricTypeSummary:
		m.SetEmptySummary()
	}
	ts := pcommon.NewTimestampFromTime(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	if stale {
		ts += pcommon.Timestamp(time.Second)
	}
	flags := pmetric.DefaultDataPointFlags.WithNoRecordedValue(stale)
	for _, r := range reasons {
		var attrs pcommon.Map
		switch typ {
		case pmetric.MetricTypeGauge, pmetric.MetricTypeSum:
			var dps pmetric.NumberDataPointSlice
			if typ == pmetric.MetricTypeGauge {
				dps = m.Gauge().DataPoints()
			} else {
				dps = m.Sum().DataPoints()
			}
			dp := dps.AppendEmpty()
			dp.SetTimestamp(ts)
			dp.SetDoubleValue(7)
			dp.SetFlags(flags)
			attrs = dp.Attributes()
		case pmetric.MetricTypeHistogram:
			dp := m.Histogram().DataPoints().AppendEmpty()
			dp.SetTimestamp(ts)
			dp.ExplicitBounds().FromRaw([]float64{1})
			dp.BucketCounts().FromRaw([]uint64{1, 1})
			dp.SetCount(2)
			dp.SetSum(3)
			dp.SetFlags(flags)
			attrs = dp.Attributes()
		case pmetric.MetricTypeSummary:
			dp := m.Summary().DataPoints().AppendEmpty()
			dp.SetTimestamp(ts)
			dp.SetCount(2)
			dp.SetSum(3)
			dp.SetFlags(flags)
			attrs = dp.Attributes()
		}
		attrs.PutStr("reason", r)
	}
	return md
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
