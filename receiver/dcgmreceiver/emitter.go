// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// emitter builds one collection's metrics: one metric per field, one point per device (and
// per pod holding it, as dcgm-exporter does for a time-sliced GPU).
type emitter struct {
	ms     pmetric.MetricSlice
	byName map[string]pmetric.Metric
	start  pcommon.Timestamp
	now    pcommon.Timestamp
}

func newEmitter(ms pmetric.MetricSlice, start, now pcommon.Timestamp) *emitter {
	return &emitter{ms: ms, byName: map[string]pmetric.Metric{}, start: start, now: now}
}

func (e *emitter) metric(f *field) pmetric.Metric {
	if m, ok := e.byName[f.name]; ok {
		return m
	}
	m := e.ms.AppendEmpty()
	m.SetName(f.name)
	m.SetDescription(f.help)
	if f.counter {
		s := m.SetEmptySum()
		s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		s.SetIsMonotonic(true)
	} else {
		m.SetEmptyGauge()
	}
	e.byName[f.name] = m
	return m
}

// adopt indexes the metrics the slice already holds, so that points of their fields join
// them instead of starting a second metric of the same name.
func (e *emitter) adopt() {
	for i := 0; i < e.ms.Len(); i++ {
		e.byName[e.ms.At(i).Name()] = e.ms.At(i)
	}
}

// emptyPoint appends a point of field f, with the emitter's timestamps and no value, to the
// field's metric.
func (e *emitter) emptyPoint(f *field) pmetric.NumberDataPoint {
	m := e.metric(f)
	var dp pmetric.NumberDataPoint
	if f.counter {
		dp = m.Sum().DataPoints().AppendEmpty()
		dp.SetStartTimestamp(e.start)
	} else {
		dp = m.Gauge().DataPoints().AppendEmpty()
	}
	dp.SetTimestamp(e.now)
	return dp
}

// point adds value v of field f with the labels set by labels, once per owner (or once
// without pod labels when nobody holds the device).
func (e *emitter) point(f *field, v float64, labels func(pcommon.Map), owners []owner) {
	add := func(o *owner) {
		dp := e.emptyPoint(f)
		dp.SetDoubleValue(v)
		labels(dp.Attributes())
		if o != nil {
			dp.Attributes().PutStr("container", o.Container)
			dp.Attributes().PutStr("namespace", o.Namespace)
			dp.Attributes().PutStr("pod", o.Pod)
		}
	}
	if len(owners) == 0 {
		add(nil)
		return
	}
	for i := range owners {
		add(&owners[i])
	}
}
