// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package points walks the data points of metrics whatever their type, so the mapping and
// identity steps, the tools and the tests that read pdata need no type switch of their own.
package points // import "github.com/modelplaneai/otelcol-modelplane/internal/points"

import (
	"slices"
	"strings"

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

// Walk calls f for every data point of md, of every type, with its resource's attributes,
// its metric and its own attributes.
func Walk(md pmetric.Metrics, f func(res pcommon.Map, m pmetric.Metric, attrs pcommon.Map)) {
	EachMetric(md, func(res pcommon.Map, m pmetric.Metric) {
		EachAttributes(m, func(attrs pcommon.Map) bool {
			f(res, m, attrs)
			return true
		})
	})
}

// WalkNumbers calls f for every point of the gauges and sums of md, with its resource's
// attributes and its metric.
func WalkNumbers(md pmetric.Metrics, f func(res pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint)) {
	EachMetric(md, func(res pcommon.Map, m pmetric.Metric) {
		var dps pmetric.NumberDataPointSlice
		switch m.Type() {
		case pmetric.MetricTypeGauge:
			dps = m.Gauge().DataPoints()
		case pmetric.MetricTypeSum:
			dps = m.Sum().DataPoints()
		default:
			return
		}
		for i := 0; i < dps.Len(); i++ {
			f(res, m, dps.At(i))
		}
	})
}

// Value is a number point's value as a float64, whichever type it holds.
func Value(dp pmetric.NumberDataPoint) float64 {
	if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
		return float64(dp.IntValue())
	}
	return dp.DoubleValue()
}

// EachMetric calls f for every metric of md, with its resource's attributes.
func EachMetric(md pmetric.Metrics, f func(res pcommon.Map, m pmetric.Metric)) {
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		res := rms.At(i).Resource().Attributes()
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				f(res, ms.At(k))
			}
		}
	}
}

// Keys builds the keys of series, reusing one buffer between calls; it is not safe for
// concurrent use.
type Keys struct{ kv []string }

// Of is the key of one series: its metric's name and each attribute map in the order given,
// each map's pairs sorted, so two points whose name and maps are equal have the same key
// whatever order their attributes were added in.
func (k *Keys) Of(name string, maps ...pcommon.Map) string {
	var b strings.Builder
	b.WriteString(name)
	for _, attrs := range maps {
		k.kv = k.kv[:0]
		for key, v := range attrs.All() {
			k.kv = append(k.kv, key+"="+v.AsString())
		}
		slices.Sort(k.kv)
		b.WriteByte('{')
		b.WriteString(strings.Join(k.kv, ","))
		b.WriteByte('}')
	}
	return b.String()
}
