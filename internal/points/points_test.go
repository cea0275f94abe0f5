// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package points

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

func sample() pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("replica", "r0")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	g := ms.AppendEmpty()
	g.SetName("g")
	g.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(3)
	s := ms.AppendEmpty()
	s.SetName("s")
	dp := s.SetEmptySum().DataPoints().AppendEmpty()
	dp.SetDoubleValue(1.5)
	dp.Attributes().PutStr("direction", "in")
	h := ms.AppendEmpty()
	h.SetName("h")
	h.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes().PutStr("le_set", "x")
	h.Histogram().DataPoints().AppendEmpty()
	e := ms.AppendEmpty()
	e.SetName("e")
	e.SetEmptyExponentialHistogram().DataPoints().AppendEmpty()
	q := ms.AppendEmpty()
	q.SetName("q")
	q.SetEmptySummary().DataPoints().AppendEmpty()
	return md
}

func TestWalkVisitsEveryPointOfEveryType(t *testing.T) {
	var got []string
	Walk(sample(), func(res pcommon.Map, m pmetric.Metric, attrs pcommon.Map) {
		r, _ := res.Get("replica")
		got = append(got, m.Name()+"@"+r.Str())
	})
	assert.Equal(t, []string{"g@r0", "s@r0", "h@r0", "h@r0", "e@r0", "q@r0"}, got)
	var n int
	md := sample()
	ms := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
	for i := 0; i < ms.Len(); i++ {
		n += Count(ms.At(i))
	}
	assert.Equal(t, len(got), n)
}

func TestWalkNumbers(t *testing.T) {
	got := map[string]float64{}
	WalkNumbers(sample(), func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
		got[m.Name()] = Value(dp)
	})
	assert.Equal(t, map[string]float64{"g": 3, "s": 1.5}, got)
}

func TestEachAttributesStops(t *testing.T) {
	h := sample().ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(2)
	calls := 0
	assert.False(t, EachAttributes(h, func(pcommon.Map) bool { calls++; return false }))
	assert.Equal(t, 1, calls)
}
