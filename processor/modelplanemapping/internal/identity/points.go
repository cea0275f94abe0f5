// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package identity

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
)

// eachPoint calls f with the attributes of every point of every metric of rm, until f
// returns false.
func eachPoint(rm pmetric.ResourceMetrics, f func(pcommon.Map) bool) {
	sms := rm.ScopeMetrics()
	for s := 0; s < sms.Len(); s++ {
		ms := sms.At(s).Metrics()
		for i := 0; i < ms.Len(); i++ {
			if !points.EachAttributes(ms.At(i), f) {
				return
			}
		}
	}
}

// copyMetricHeader gives dst src's name, description, unit, metadata, type and temporality,
// without points.
func copyMetricHeader(src, dst pmetric.Metric) {
	dst.SetName(src.Name())
	dst.SetDescription(src.Description())
	dst.SetUnit(src.Unit())
	src.Metadata().CopyTo(dst.Metadata())
	switch src.Type() {
	case pmetric.MetricTypeGauge:
		dst.SetEmptyGauge()
	case pmetric.MetricTypeSum:
		dst.SetEmptySum().SetAggregationTemporality(src.Sum().AggregationTemporality())
		dst.Sum().SetIsMonotonic(src.Sum().IsMonotonic())
	case pmetric.MetricTypeHistogram:
		dst.SetEmptyHistogram().SetAggregationTemporality(src.Histogram().AggregationTemporality())
	case pmetric.MetricTypeExponentialHistogram:
		dst.SetEmptyExponentialHistogram().SetAggregationTemporality(src.ExponentialHistogram().AggregationTemporality())
	case pmetric.MetricTypeSummary:
		dst.SetEmptySummary()
	}
}

// movePoints moves each point of m for which dest names a metric into that metric, strips
// it with strip, and removes it from m.
func movePoints(m pmetric.Metric, dest func(pcommon.Map) (pmetric.Metric, bool), strip func(pcommon.Map)) {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		m.Gauge().DataPoints().RemoveIf(func(dp pmetric.NumberDataPoint) bool {
			d, ok := dest(dp.Attributes())
			if ok {
				nd := d.Gauge().DataPoints().AppendEmpty()
				dp.MoveTo(nd)
				strip(nd.Attributes())
			}
			return ok
		})
	case pmetric.MetricTypeSum:
		m.Sum().DataPoints().RemoveIf(func(dp pmetric.NumberDataPoint) bool {
			d, ok := dest(dp.Attributes())
			if ok {
				nd := d.Sum().DataPoints().AppendEmpty()
				dp.MoveTo(nd)
				strip(nd.Attributes())
			}
			return ok
		})
	case pmetric.MetricTypeHistogram:
		m.Histogram().DataPoints().RemoveIf(func(dp pmetric.HistogramDataPoint) bool {
			d, ok := dest(dp.Attributes())
			if ok {
				nd := d.Histogram().DataPoints().AppendEmpty()
				dp.MoveTo(nd)
				strip(nd.Attributes())
			}
			return ok
		})
	case pmetric.MetricTypeExponentialHistogram:
		m.ExponentialHistogram().DataPoints().RemoveIf(func(dp pmetric.ExponentialHistogramDataPoint) bool {
			d, ok := dest(dp.Attributes())
			if ok {
				nd := d.ExponentialHistogram().DataPoints().AppendEmpty()
				dp.MoveTo(nd)
				strip(nd.Attributes())
			}
			return ok
		})
	case pmetric.MetricTypeSummary:
		m.Summary().DataPoints().RemoveIf(func(dp pmetric.SummaryDataPoint) bool {
			d, ok := dest(dp.Attributes())
			if ok {
				nd := d.Summary().DataPoints().AppendEmpty()
				dp.MoveTo(nd)
				strip(nd.Attributes())
			}
			return ok
		})
	}
}
