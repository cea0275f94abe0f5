// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

// TargetPrefix names the vocabulary that leaves a cluster.
const TargetPrefix = "modelplane_"

// Refusal is why a conversion could not be applied; the metric is then dropped rather than
// exported in the wrong unit.
type Refusal uint8

const (
	// RefusedBounds: converted histogram bounds were no longer strictly increasing.
	RefusedBounds Refusal = iota
	// RefusedPartType: a part was asked of a metric that is not a histogram or summary.
	RefusedPartType
	// NumRefusals counts the reasons above.
	NumRefusals
)

func (r Refusal) String() string {
	switch r {
	case RefusedBounds:
		return "bounds_not_increasing"
	case RefusedPartType:
		return "part_of_non_histogram"
	}
	return "unknown"
}

// Stats counts data points through one Apply.
type Stats struct {
	In      int64
	Mapped  int64 // points of metrics that a mapping renamed, converted, labelled or extracted
	Dropped int64 // points of metrics removed because they are not modelplane_*
	Refused [NumRefusals]int64
}

// Options select the behaviour around the mappings.
type Options struct {
	// DropUnmapped removes every metric whose final name is not modelplane_*.
	DropUnmapped bool
	// OTLPNames looks a metric whose name is not a Prometheus name up under the name the
	// OpenTelemetry Prometheus exporters give it; when a mapping reads it, it takes that name
	// and its attribute keys are translated the same way (otlpnames.go).
	OTLPNames bool
}

// Apply runs the set over every metric of md in place: part extraction, unit conversion,
// labels, rename, then the drop of what is not modelplane_*. A metric's outcome depends only
// on itself, so going metric by metric equals the reference's phase by phase.
func (s *Set) Apply(md pmetric.Metrics, opts Options, st *Stats) {
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		src := source{sms: sms}
		for j := 0; j < sms.Len(); j++ {
			s.applyScope(sms.At(j).Metrics(), opts, st, &src)
		}
		sms.RemoveIf(func(sm pmetric.ScopeMetrics) bool { return sm.Metrics().Len() == 0 })
	}
	rms.RemoveIf(func(rm pmetric.ResourceMetrics) bool { return rm.ScopeMetrics().Len() == 0 })
}

// source is one resource's batch: one scrape target, the GPU receiver of a host.
type source struct {
	sms pmetric.ScopeMetricsSlice
	// preferred: 0 not looked at yet, 1 the batch holds a preferred source, 2 it holds none.
	preferred uint8
}

// hasPreferred tells whether the batch holds a source of a mapping that others stand in
// for; it looks once per batch, and only for a batch that holds a fallback's source. The
// sources mapped before the look are marked as they go (their names change).
func (src *source) hasPreferred(preferred map[string]bool) bool {
	if src.preferred == 0 {
		src.preferred = 2
		for j := 0; j < src.sms.Len() && src.preferred == 2; j++ {
			ms := src.sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				if preferred[ms.At(k).Name()] {
					src.preferred = 1
					break
				}
			}
		}
	}
	return src.preferred == 1
}

func (s *Set) applyScope(ms pmetric.MetricSlice, opts Options, st *Stats, src *source) {
	n := ms.Len()
	remove := false
	// Extracted parts are appended after the originals and then planned like any metric;
	// their internal names always have a plan, so none survives this loop.
	for k := 0; k < ms.Len(); k++ {
		m := ms.At(k)
		points := int64(points.Count(m))
		if k < n {
			st.In += points
		}
		p, ok := s.lookup(m.Name())
		if !ok && opts.OTLPNames && !isPrometheusName(m.Name()) {
			if name, valid := prometheusName(m); valid {
				if p, ok = s.lookup(name); ok {
					m.SetName(name)
					translateAttributeKeys(m)
				}
			}
		}
		if ok && p.preferred {
			src.preferred = 1 // seen before its name changes
		}
		if ok && p.fallback && src.hasPreferred(s.preferred) {
			ok = false // the batch has the newer names: they are the ones mapped
		}
		if ok {
			st.Mapped += points
			if !s.applyPlan(m, k, p, ms, st) {
				remove = true
				continue
			}
		}
		if opts.DropUnmapped && !strings.HasPrefix(m.Name(), TargetPrefix) {
			st.Dropped += points
			m.SetName("")
			remove = true
			continue
		}
		if m.Type() == pmetric.MetricTypeHistogram {
			endStaleSums(m.Histogram().DataPoints())
		}
	}
	if remove {
		ms.RemoveIf(func(m pmetric.Metric) bool { return m.Name() == "" })
	}
}

// endStaleSums gives a sum to each staleness marker of a histogram that has none: remote
// write writes a `_sum` sample only for a point with one, so `_sum` answered for five minutes
// after `_bucket` and `_count` ended. The value is never read (a stale NaN is written).
func endStaleSums(dps pmetric.HistogramDataPointSlice) {
	for i := 0; i < dps.Len(); i++ {
		if dp := dps.At(i); dp.Flags().NoRecordedValue() && !dp.HasSum() {
			dp.SetSum(0)
		}
	}
}

// applyPlan runs one plan on ms[k]. It returns false, with the metric's name cleared for
// removal, where a conversion was refused: a metric is never exported in a wrong unit.
func (s *Set) applyPlan(m pmetric.Metric, k int, p *plan, ms pmetric.MetricSlice, st *Stats) bool {
	for _, x := range p.extract {
		if !extract(m, x, ms) {
			st.Refused[RefusedPartType]++
		}
		m = ms.At(k) // AppendEmpty may have moved the slice's backing array
	}
	for _, u := range p.convert {
		if !convertMetric(m, u, p) {
			st.Refused[RefusedBounds]++
			m.SetName("")
			return false
		}
	}
	if len(p.labels) > 0 {
		applyLabels(m, p.labels)
	}
	if len(p.convert) == 0 && p.unit != "" {
		m.SetUnit(p.unit)
	}
	if p.help != "" {
		m.SetDescription(p.help)
	}
	m.SetName(p.to)
	return true
}

// extract appends to ms a monotonic counter holding the count or the sum of m's points, with
// m's temporality (cumulative for a summary), named x.name until the rename phase.
func extract(m pmetric.Metric, x extraction, ms pmetric.MetricSlice) bool {
	var temporality pmetric.AggregationTemporality
	switch m.Type() {
	case pmetric.MetricTypeHistogram:
		temporality = m.Histogram().AggregationTemporality()
	case pmetric.MetricTypeExponentialHistogram:
		temporality = m.ExponentialHistogram().AggregationTemporality()
	case pmetric.MetricTypeSummary:
		temporality = pmetric.AggregationTemporalityCumulative
	default:
		return false
	}
	out := ms.AppendEmpty()
	out.SetName(x.name)
	out.SetDescription(m.Description())
	if x.part == partSum {
		out.SetUnit(m.Unit())
	} else {
		out.SetUnit("1") // a count of observations, whatever unit they were measured in
	}
	sum := out.SetEmptySum()
	sum.SetAggregationTemporality(temporality)
	sum.SetIsMonotonic(true)
	dps := sum.DataPoints()
	isSum := x.part == partSum
	switch m.Type() {
	case pmetric.MetricTypeHistogram:
		src := m.Histogram().DataPoints()
		dps.EnsureCapacity(src.Len())
		for i := 0; i < src.Len(); i++ {
			if dp := src.At(i); !isSum || dp.HasSum() {
				appendPart(dps, dp.Attributes(), dp.StartTimestamp(), dp.Timestamp(), dp.Flags(), isSum, dp.Count(), dp.Sum())
			}
		}
	case pmetric.MetricTypeExponentialHistogram:
		src := m.ExponentialHistogram().DataPoints()
		dps.EnsureCapacity(src.Len())
		for i := 0; i < src.Len(); i++ {
			if dp := src.At(i); !isSum || dp.HasSum() {
				appendPart(dps, dp.Attributes(), dp.StartTimestamp(), dp.Timestamp(), dp.Flags(), isSum, dp.Count(), dp.Sum())
			}
		}
	case pmetric.MetricTypeSummary:
		src := m.Summary().DataPoints()
		dps.EnsureCapacity(src.Len())
		for i := 0; i < src.Len(); i++ {
			dp := src.At(i)
			appendPart(dps, dp.Attributes(), dp.StartTimestamp(), dp.Timestamp(), dp.Flags(), isSum, dp.Count(), dp.Sum())
		}
	}
	return true
}

func appendPart(dps pmetric.NumberDataPointSlice, attrs pcommon.Map, start, ts pcommon.Timestamp, flags pmetric.DataPointFlags, isSum bool, count uint64, sum float64) {
	o := dps.AppendEmpty()
	attrs.CopyTo(o.Attributes())
	o.SetStartTimestamp(start)
	o.SetTimestamp(ts)
	o.SetFlags(flags)
	if isSum {
		o.SetDoubleValue(sum)
	} else {
		o.SetIntValue(int64(count))
	}
}

// applyLabels runs the label operations in order on every point of m.
func applyLabels(m pmetric.Metric, ops []labelOp) {
	points.EachAttributes(m, func(attrs pcommon.Map) bool {
		for i := range ops {
			op := &ops[i]
			if op.from == "" {
				attrs.PutStr(op.name, op.value)
				continue
			}
			v, ok := attrs.Get(op.from)
			if !ok {
				// Copying a missing label empties the target, as Prometheus relabelling and
				// the reference do; an empty label is no label, so remove it.
				attrs.Remove(op.name)
				continue
			}
			if op.values != nil && v.Type() == pcommon.ValueTypeStr {
				if to, hit := op.values[v.Str()]; hit {
					attrs.PutStr(op.name, to)
					if op.from != op.name {
						attrs.Remove(op.from)
					}
					continue
				}
			}
			if op.from != op.name {
				v.CopyTo(attrs.PutEmpty(op.name))
				// PutEmpty may have grown the map and moved v: look it up again to remove it.
				attrs.Remove(op.from)
			}
		}
		return true
	})
}

// targetDescription rewrites a description that names the source unit: "(in MiB)" becomes
// "(in bytes)"; a description that still names the source unit after that is cleared, since
// it would be wrong.
func targetDescription(desc string, u units.Unit) string {
	if desc == "" {
		return desc
	}
	word := map[string]string{"s": "seconds", "By": "bytes", "J": "joules", "W": "watts", "1": "ratio"}[u.Target()]
	short := u.Short()
	long := strings.ToLower(u.String())
	for _, pat := range []string{"(in " + short + ")", "(in " + long + ")", "in " + short + ".", "(" + short + ")"} {
		if strings.Contains(desc, pat) {
			repl := strings.Replace(pat, short, word, 1)
			repl = strings.Replace(repl, long, word, 1)
			desc = strings.Replace(desc, pat, repl, 1)
		}
	}
	if mentionsUnit(desc, short) || strings.Contains(strings.ToLower(desc), long) {
		return ""
	}
	return desc
}

// mentionsUnit reports whether short appears in desc as a word of its own.
func mentionsUnit(desc, short string) bool {
	for i := 0; ; {
		j := strings.Index(desc[i:], short)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(desc[j-1])
		end := j + len(short)
		after := end == len(desc) || !isWordByte(desc[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
