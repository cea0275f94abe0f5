// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	datapoints "github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/rules"
)

// reloadEndWindow is how long after a mapping reload the series the previous mappings
// produced are ended. It is Prometheus's default lookback: after it the backend has stopped
// answering with a series that got no sample, marker or not.
const reloadEndWindow = 5 * time.Minute

// reloadEnd ends the series a mapping reload stops producing with staleness markers: the
// first batch of each source after a reload also runs through the previous mappings, and
// what they made that the current ones do not gets a marker (within reloadEndWindow).
type reloadEnd struct {
	active atomic.Bool
	window time.Duration // reloadEndWindow

	mu sync.Mutex
	// from produced the last batch of every source not seen since the first reload of this
	// transition; last holds the set that produced the last batch of each source seen since.
	from  *rules.Set
	last  map[string]*rules.Set
	until time.Time
}

// begin starts, or extends, the transition away from old. A source not seen since an
// earlier reload still carries that reload's old series, so from stays as it was.
func (r *reloadEnd) begin(old *rules.Set, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active.Load() {
		r.from, r.last = old, map[string]*rules.Set{}
	}
	r.until = now.Add(r.window)
	r.active.Store(true)
}

// previous is the set that produced the last batch of md's source, if it is not current and
// the transition is on; nil otherwise. It records current as the source's set.
func (r *reloadEnd) previous(md pmetric.Metrics, current *rules.Set, now time.Time) *rules.Set {
	if !r.active.Load() {
		return nil
	}
	key := sourceKey(md)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active.Load() {
		return nil
	}
	if now.After(r.until) {
		r.active.Store(false)
		r.from, r.last = nil, nil
		return nil
	}
	prev, ok := r.last[key]
	if !ok {
		prev = r.from
	}
	r.last[key] = current
	if prev == current {
		return nil
	}
	return prev
}

// sourceKey names the source of a batch by its resources' attributes, as the receivers set
// them: the job and instance of a scrape target, the host of the GPU receiver.
func sourceKey(md pmetric.Metrics) string {
	var keys datapoints.Keys
	key := ""
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		key += keys.Of("", rms.At(i).Resource().Attributes())
	}
	return key
}

// endMissing appends to after a staleness marker for every series of before (the same input
// through the previous mappings) that after does not hold, and returns how many. A marker
// loses its exemplars; a histogram's keeps a sum, so that remote write ends its `_sum` too.
func endMissing(before, after pmetric.Metrics) int64 {
	var keys datapoints.Keys
	live := map[string]bool{}
	datapoints.Walk(after, func(res pcommon.Map, m pmetric.Metric, attrs pcommon.Map) {
		live[keys.Of(m.Name(), res, attrs)] = true
	})
	var ended int64
	rms := before.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		res := rms.At(i).Resource().Attributes()
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			ms.RemoveIf(func(m pmetric.Metric) bool {
				isLive := func(attrs pcommon.Map) bool { return live[keys.Of(m.Name(), res, attrs)] }
				n := markEnded(m, isLive)
				ended += int64(n)
				return n == 0
			})
		}
		sms.RemoveIf(func(sm pmetric.ScopeMetrics) bool { return sm.Metrics().Len() == 0 })
	}
	rms.RemoveIf(func(rm pmetric.ResourceMetrics) bool { return rm.ScopeMetrics().Len() == 0 })
	rms.MoveAndAppendTo(after.ResourceMetrics())
	return ended
}

// markEnded removes the points of m whose series is live and makes the rest markers; it
// returns how many are left.
func markEnded(m pmetric.Metric, isLive func(pcommon.Map) bool) int {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return markRest(m.Gauge().DataPoints(), isLive, dropNumberExemplars)
	case pmetric.MetricTypeSum:
		return markRest(m.Sum().DataPoints(), isLive, dropNumberExemplars)
	case pmetric.MetricTypeHistogram:
		return markRest(m.Histogram().DataPoints(), isLive, func(dp pmetric.HistogramDataPoint) {
			dp.Exemplars().RemoveIf(everyExemplar)
			if !dp.HasSum() {
				dp.SetSum(0)
			}
		})
	case pmetric.MetricTypeExponentialHistogram:
		return markRest(m.ExponentialHistogram().DataPoints(), isLive, func(dp pmetric.ExponentialHistogramDataPoint) {
			dp.Exemplars().RemoveIf(everyExemplar)
		})
	case pmetric.MetricTypeSummary:
		return markRest(m.Summary().DataPoints(), isLive, func(pmetric.SummaryDataPoint) {})
	}
	return 0
}

type markable interface {
	Attributes() pcommon.Map
	SetFlags(pmetric.DataPointFlags)
}

type markableSlice[P markable] interface {
	RemoveIf(func(P) bool)
	Len() int
	At(int) P
}

// markRest removes the live points of dps, flags the rest as markers and passes each to
// mend; it returns how many are left.
func markRest[P markable, S markableSlice[P]](dps S, isLive func(pcommon.Map) bool, mend func(P)) int {
	dps.RemoveIf(func(dp P) bool { return isLive(dp.Attributes()) })
	for i := 0; i < dps.Len(); i++ {
		dps.At(i).SetFlags(stale)
		mend(dps.At(i))
	}
	return dps.Len()
}

func dropNumberExemplars(dp pmetric.NumberDataPoint) { dp.Exemplars().RemoveIf(everyExemplar) }

var stale = pmetric.DefaultDataPointFlags.WithNoRecordedValue(true)

func everyExemplar(pmetric.Exemplar) bool { return true }
