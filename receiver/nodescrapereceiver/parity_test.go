// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver

import (
	"context"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/scrapefilter"
)

// The receiver emits what contrib's Prometheus receiver emits from every shared page, in
// both formats the engines answer in, with and without the scrape filter's keep rule.
func TestSameAsThePrometheusReceiver(t *testing.T) {
	fleet := scrapetest.Fleet(2, 2)
	for _, tc := range []struct {
		name  string
		rules []map[string]any
	}{
		{"whole pages", nil},
		{"scrape filter", []map[string]any{
			{"source_labels": []any{"exported_engine"}, "regex": "(.+)", "target_label": "engine_index"},
			{"regex": "exported_engine", "action": "labeldrop"},
			scrapefilter.KeepRule(builtinSources(t)),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scrapetest.InBothFormats(t, fleet, func(t *testing.T, targets []scrapetest.Target) {
				ctx := context.Background()
				want, err := scrapetest.Scrape(ctx, targets, tc.rules...)
				require.NoError(t, err)
				got, err := scrapetest.ScrapeWith(ctx, NewFactory(), targets, tc.rules...)
				require.NoError(t, err)
				require.Positive(t, got.DataPointCount())
				requireSame(t, want, got)
			})
		})
	}
}

// Staleness: a target that stops answering gets a marker for every series it had.
func TestStaleMarkersAsThePrometheusReceiver(t *testing.T) {
	targets := scrapetest.Fleet(1, 2)
	ctx := context.Background()
	want, err := scrapetest.StaleMarkers(ctx, targets)
	require.NoError(t, err)
	got, err := scrapetest.StaleMarkersWith(ctx, NewFactory(), targets)
	require.NoError(t, err)
	requireSame(t, want, got)
}

func requireSame(t *testing.T, want, got pmetric.Metrics) {
	t.Helper()
	for _, md := range []pmetric.Metrics{want, got} {
		rms := md.ResourceMetrics()
		for i := 0; i < rms.Len(); i++ {
			sms := rms.At(i).ScopeMetrics()
			for j := 0; j < sms.Len(); j++ {
				nanAsZero(sms.At(j).Metrics())
				if sms.At(j).Scope().Name() == scopeName || sms.At(j).Scope().Name() == "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver" {
					sms.At(j).Scope().SetName("receiver")
				}
			}
		}
	}
	require.NoError(t, pmetrictest.CompareMetrics(want, got,
		pmetrictest.IgnoreTimestamp(), pmetrictest.IgnoreStartTimestamp(),
		pmetrictest.IgnoreResourceAttributeValue("service.instance.id"), pmetrictest.IgnoreResourceAttributeValue("server.port"),
		pmetrictest.IgnoreScopeVersion(), pmetrictest.IgnoreResourceMetricsOrder(), pmetrictest.IgnoreScopeMetricsOrder(),
		pmetrictest.IgnoreMetricsOrder(), pmetrictest.IgnoreMetricDataPointsOrder(), pmetrictest.IgnoreDatapointAttributesOrder(),
		pmetrictest.IgnoreMetricValues("scrape_duration_seconds", "scrape_series_added"),
	))
}

func builtinSources(t *testing.T) []string {
	t.Helper()
	names, on, err := modelplanemapping.ScrapeSources(confmap.NewFromStringMap(map[string]any{"scrape_filter": true}), nil)
	require.NoError(t, err)
	require.True(t, on)
	return names
}

// nanAsZero sets NaN values to 0: NaN equals nothing, itself included, in the comparison.
func nanAsZero(ms pmetric.MetricSlice) {
	for i := 0; i < ms.Len(); i++ {
		var dps pmetric.NumberDataPointSlice
		switch m := ms.At(i); m.Type() {
		case pmetric.MetricTypeGauge:
			dps = m.Gauge().DataPoints()
		case pmetric.MetricTypeSum:
			dps = m.Sum().DataPoints()
		default:
			continue
		}
		for j := 0; j < dps.Len(); j++ {
			if v := dps.At(j).DoubleValue(); v != v {
				dps.At(j).SetDoubleValue(0)
			}
		}
	}
}
