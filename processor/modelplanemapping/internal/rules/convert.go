// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"math"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

// convertMetric converts every value of m that is measured in u, sets m's unit to the target
// UCUM unit and corrects its description. It returns false where the result could not be
// represented (bounds that stop increasing); the caller then drops m.
func convertMetric(m pmetric.Metric, u units.Unit, p *plan) bool {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		convertNumbers(m.Gauge().DataPoints(), u)
	case pmetric.MetricTypeSum:
		convertNumbers(m.Sum().DataPoints(), u)
	case pmetric.MetricTypeHistogram:
		if !convertHistograms(m.Histogram().DataPoints(), u) {
			return false
		}
	case pmetric.MetricTypeSummary:
		dps := m.Summary().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			dp.SetSum(u.Convert(dp.Sum()))
			qs := dp.QuantileValues()
			for q := 0; q < qs.Len(); q++ {
				qs.At(q).SetValue(u.Convert(qs.At(q).Value()))
			}
		}
	case pmetric.MetricTypeExponentialHistogram:
		if !convertExponential(m, u) {
			return false
		}
	}
	m.SetUnit(u.Target())
	if p.help == "" { // a built-in target's canonical description replaces it anyway
		m.SetDescription(p.description(m.Description(), u))
	}
	return true
}

func convertNumbers(dps pmetric.NumberDataPointSlice, u units.Unit) {
	for i := 0; i < dps.Len(); i++ {
		dp := dps.At(i)
		switch dp.ValueType() {
		case pmetric.NumberDataPointValueTypeInt:
			if iv, fv, ok := u.ConvertInt(dp.IntValue()); ok {
				dp.SetIntValue(iv)
			} else {
				dp.SetDoubleValue(fv)
			}
		case pmetric.NumberDataPointValueTypeDouble:
			dp.SetDoubleValue(u.Convert(dp.DoubleValue()))
		}
		convertExemplars(dp.Exemplars(), u)
	}
}

func convertExemplars(ex pmetric.ExemplarSlice, u units.Unit) {
	for i := 0; i < ex.Len(); i++ {
		e := ex.At(i)
		switch e.ValueType() {
		case pmetric.ExemplarValueTypeInt:
			if iv, fv, ok := u.ConvertInt(e.IntValue()); ok {
				e.SetIntValue(iv)
			} else {
				e.SetDoubleValue(fv)
			}
		case pmetric.ExemplarValueTypeDouble:
			e.SetDoubleValue(u.Convert(e.DoubleValue()))
		}
	}
}

func convertHistograms(dps pmetric.HistogramDataPointSlice, u units.Unit) bool {
	for i := 0; i < dps.Len(); i++ {
		dp := dps.At(i)
		if dp.HasSum() {
			dp.SetSum(u.Convert(dp.Sum()))
		}
		if dp.HasMin() {
			dp.SetMin(u.Convert(dp.Min()))
		}
		if dp.HasMax() {
			dp.SetMax(u.Convert(dp.Max()))
		}
		bounds := dp.ExplicitBounds()
		prev := math.Inf(-1)
		for b := 0; b < bounds.Len(); b++ {
			v := u.Convert(bounds.At(b))
			if !(v > prev) {
				return false
			}
			bounds.SetAt(b, v)
			prev = v
		}
		convertExemplars(dp.Exemplars(), u)
	}
	return true
}

// convertExponential converts an exponential histogram: a factor 2^k at scale >= 0 shifts
// the bucket indexes exactly; any other factor makes it an explicit-bucket histogram of the
// converted boundaries with the original counts, never estimated or redistributed.
func convertExponential(m pmetric.Metric, u units.Unit) bool {
	eh := m.ExponentialHistogram()
	dps := eh.DataPoints()
	if u.Binary() {
		shiftable := true
		for i := 0; i < dps.Len(); i++ {
			if dps.At(i).Scale() < 0 {
				shiftable = false
			}
		}
		if shiftable {
			for i := 0; i < dps.Len(); i++ {
				shiftExponential(dps.At(i), u)
			}
			return true
		}
	}
	out := pmetric.NewMetric()
	h := out.SetEmptyHistogram()
	h.SetAggregationTemporality(eh.AggregationTemporality())
	h.DataPoints().EnsureCapacity(dps.Len())
	for i := 0; i < dps.Len(); i++ {
		if !explicitFromExponential(dps.At(i), h.DataPoints().AppendEmpty(), u) {
			return false
		}
	}
	h.MoveTo(m.SetEmptyHistogram())
	return true
}

func shiftExponential(dp pmetric.ExponentialHistogramDataPoint, u units.Unit) {
	delta := int32(u.Shift()) << dp.Scale()
	dp.Positive().SetOffset(dp.Positive().Offset() + delta)
	dp.Negative().SetOffset(dp.Negative().Offset() + delta)
	dp.SetZeroThreshold(u.Convert(dp.ZeroThreshold()))
	if dp.HasSum() {
		dp.SetSum(u.Convert(dp.Sum()))
	}
	if dp.HasMin() {
		dp.SetMin(u.Convert(dp.Min()))
	}
	if dp.HasMax() {
		dp.SetMax(u.Convert(dp.Max()))
	}
	convertExemplars(dp.Exemplars(), u)
}

func explicitFromExponential(src pmetric.ExponentialHistogramDataPoint, dst pmetric.HistogramDataPoint, u units.Unit) bool {
	src.Attributes().CopyTo(dst.Attributes())
	dst.SetStartTimestamp(src.StartTimestamp())
	dst.SetTimestamp(src.Timestamp())
	dst.SetFlags(src.Flags())
	dst.SetCount(src.Count())
	if src.HasSum() {
		dst.SetSum(u.Convert(src.Sum()))
	}
	if src.HasMin() {
		dst.SetMin(u.Convert(src.Min()))
	}
	if src.HasMax() {
		dst.SetMax(u.Convert(src.Max()))
	}
	src.Exemplars().CopyTo(dst.Exemplars())
	convertExemplars(dst.Exemplars(), u)

	// Bucket i of an exponential histogram covers (base^i, base^(i+1)] on the positive side
	// and the mirror image on the negative side.
	boundary := func(i int32) float64 { return math.Exp2(float64(i) * math.Exp2(-float64(src.Scale()))) }
	neg, pos := src.Negative(), src.Positive()
	nNeg, nPos := neg.BucketCounts().Len(), pos.BucketCounts().Len()
	bounds := dst.ExplicitBounds()
	counts := dst.BucketCounts()
	bounds.EnsureCapacity(nNeg + nPos + 4)
	counts.EnsureCapacity(nNeg + nPos + 5)
	if nNeg > 0 {
		counts.Append(0) // nothing lies below the lowest negative boundary
		bounds.Append(u.Convert(-boundary(neg.Offset() + int32(nNeg))))
		for j := nNeg - 1; j >= 0; j-- {
			counts.Append(neg.BucketCounts().At(j))
			bounds.Append(u.Convert(-boundary(neg.Offset() + int32(j))))
		}
	}
	zt := src.ZeroThreshold()
	if nNeg > 0 && zt > 0 && -zt > -boundary(neg.Offset()) {
		counts.Append(0) // the gap between the lowest negative bucket and the zero bucket
		bounds.Append(u.Convert(-zt))
	}
	counts.Append(src.ZeroCount())
	bounds.Append(u.Convert(zt))
	if nPos > 0 && boundary(pos.Offset()) > zt {
		counts.Append(0) // the gap between the zero bucket and the first positive bucket
		bounds.Append(u.Convert(boundary(pos.Offset())))
	}
	for j := 0; j < nPos; j++ {
		counts.Append(pos.BucketCounts().At(j))
		bounds.Append(u.Convert(boundary(pos.Offset() + int32(j) + 1)))
	}
	counts.Append(0) // nothing lies above the highest positive boundary
	for b := 1; b < bounds.Len(); b++ {
		if !(bounds.At(b) > bounds.At(b-1)) {
			return false
		}
	}
	return true
}
