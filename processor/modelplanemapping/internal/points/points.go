// Package points walks the data points of a metric whatever its type, so the mapping and
// identity steps need no type switch of their own.
package points // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/points"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Count is the number of data points of m.
func Count(m pmetric.Metric) int {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len()
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		return m.Histogram().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		return m.ExponentialHistogram().DataPoints().Len()
	case pmetric.MetricTypeSummary:
		return m.Summary().DataPoints().Len()
	}
	return 0
}

// EachAttributes calls f with the attributes of every point of m until f returns false, and
// reports whether it went through all of them.
func EachAttributes(m pmetric.Metric, f func(pcommon.Map) bool) bool {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return each(m.Gauge().DataPoints(), f)
	case pmetric.MetricTypeSum:
		return each(m.Sum().DataPoints(), f)
	case pmetric.MetricTypeHistogram:
		return each(m.Histogram().DataPoints(), f)
	case pmetric.MetricTypeExponentialHistogram:
		return each(m.ExponentialHistogram().DataPoints(), f)
	case pmetric.MetricTypeSummary:
		return each(m.Summary().DataPoints(), f)
	}
	return true
}

type point interface{ Attributes() pcommon.Map }

type slice[P point] interface {
	Len() int
	At(int) P
}

func each[P point, S slice[P]](dps S, f func(pcommon.Map) bool) bool {
	for i := 0; i < dps.Len(); i++ {
		if !f(dps.At(i).Attributes()) {
			return false
		}
	}
	return true
}
