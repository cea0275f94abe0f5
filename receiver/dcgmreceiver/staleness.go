// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	datapoints "github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// seriesSet remembers the series of the last collection, so that one missing from the next
// (a pod released the GPU, NVML went away) ends with a staleness marker, as the Prometheus
// receiver ends a series that left a scraped page.
type seriesSet struct {
	last, next map[string]series
	keys       datapoints.Keys
}

type series struct {
	name  string
	attrs pcommon.Map
	start pcommon.Timestamp
}

func newSeriesSet() *seriesSet {
	return &seriesSet{last: map[string]series{}, next: map[string]series{}}
}

// endMissing adds to md a staleness marker, timestamped now, for every series of the last
// call that md does not hold, and remembers md's series for the next call.
func (s *seriesSet) endMissing(md pmetric.Metrics, now pcommon.Timestamp) {
	datapoints.WalkNumbers(md, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) { s.see(m.Name(), dp) })
	if len(s.last) > 0 {
		out := newEmitter(scopeMetrics(md).Metrics(), 0, now)
		out.adopt()
		for _, gone := range s.last {
			f, ok := fieldByName[gone.name]
			if !ok {
				continue
			}
			out.start = gone.start
			dp := out.emptyPoint(f)
			dp.SetFlags(pmetric.DefaultDataPointFlags.WithNoRecordedValue(true))
			gone.attrs.CopyTo(dp.Attributes())
		}
	}
	clear(s.last)
	s.last, s.next = s.next, s.last
}

// see moves the series of one point from last to next, or adds it to next.
func (s *seriesSet) see(name string, dp pmetric.NumberDataPoint) {
	key := s.keys.Of(name, dp.Attributes())
	if known, ok := s.last[key]; ok {
		delete(s.last, key)
		s.next[key] = known
		return
	}
	attrs := pcommon.NewMap()
	dp.Attributes().CopyTo(attrs)
	s.next[key] = series{name: name, attrs: attrs, start: dp.StartTimestamp()}
}

// scopeMetrics is md's scope of this receiver, added where md has none (no GPU read).
func scopeMetrics(md pmetric.Metrics) pmetric.ScopeMetrics {
	if rms := md.ResourceMetrics(); rms.Len() > 0 && rms.At(0).ScopeMetrics().Len() > 0 {
		return rms.At(0).ScopeMetrics().At(0)
	}
	sm := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty()
	sm.Scope().SetName(metadata.ScopeName)
	return sm
}
