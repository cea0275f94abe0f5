// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/units"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/rules"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// generated is a random but valid mapping set and a batch its rules touch.
type generated struct {
	mappings []metricmapping.MetricMapping
	input    pmetric.Metrics
}

var (
	genSources = []string{"eng:queue", "eng_latency_ms", "eng_tokens", "eng_energy", "eng_mem", "eng_finished"}
	genTargets = []string{"modelplane_a", "modelplane_b", "modelplane_c", "modelplane_d_total"}
	genLabels  = []string{"direction", "reason", "code", "role", "replica"}
)

// generate builds mappings and metrics from r. Every point carries src=<metric> so no two
// series can collide by accident; values are doubles, so the only value differences left
// are the reference's inexact multiplication, which rendering at 12 digits hides.
func generate(r *rand.Rand) generated {
	types := map[string]pmetric.MetricType{}
	kinds := []pmetric.MetricType{pmetric.MetricTypeGauge, pmetric.MetricTypeSum, pmetric.MetricTypeHistogram,
		pmetric.MetricTypeSummary, pmetric.MetricTypeExponentialHistogram}
	anyExponential := false
	for _, s := range genSources {
		types[s] = kinds[r.IntN(len(kinds))]
		anyExponential = anyExponential || types[s] == pmetric.MetricTypeExponentialHistogram
	}
	unitNames := units.Names()
	var mappings []metricmapping.MetricMapping
	for mi := 0; mi < 1+r.IntN(3); mi++ {
		m := metricmapping.MetricMapping{Name: fmt.Sprintf("m%d", mi)}
		used := map[string]bool{}
		for ei := 0; ei < 1+r.IntN(6); ei++ {
			var e metricmapping.Entry
			if r.IntN(5) == 0 {
				e.From = genTargets[r.IntN(len(genTargets))] // re-map an earlier target: a chain
			} else {
				e.From = genSources[r.IntN(len(genSources))]
			}
			e.To = genTargets[r.IntN(len(genTargets))]
			t, isSource := types[e.From]
			if (t == pmetric.MetricTypeHistogram || t == pmetric.MetricTypeSummary || t == pmetric.MetricTypeExponentialHistogram) && r.IntN(2) == 0 {
				e.Part = []string{metricmapping.PartCount, metricmapping.PartSum}[r.IntN(2)]
			}
			// The reference cannot convert an exponential histogram (TestDefectUnitsDescriptionsAndExponential):
			// no unit on one, whether read as a source or, through a chain, as a target.
			exponential := (t == pmetric.MetricTypeExponentialHistogram && e.Part == "") || (!isSource && anyExponential)
			if e.Part != metricmapping.PartCount && !exponential && r.IntN(2) == 0 {
				e.FromUnit = unitNames[r.IntN(len(unitNames))]
			}
			if used[e.From+"/"+e.Part] {
				continue
			}
			used[e.From+"/"+e.Part] = true
			for li := 0; li < r.IntN(3); li++ {
				name := genLabels[r.IntN(len(genLabels))]
				l := metricmapping.Label{Name: name}
				if r.IntN(2) == 0 {
					v := fmt.Sprintf("v%d", r.IntN(3))
					l.Value = &v
				} else {
					l.From = []string{"k", "code", name}[r.IntN(3)]
					if r.IntN(2) == 0 {
						// Outputs never equal inputs: the reference applies remaps one
						// statement at a time, so a chain a->b, b->c would chain there.
						l.Values = map[string]string{"x0": "y0", "x1": "y1"}
					}
				}
				if dupLabel(e.Labels, name) {
					continue
				}
				e.Labels = append(e.Labels, l)
			}
			m.Metrics = append(m.Metrics, e)
		}
		if len(m.Metrics) > 0 && metricmapping.Validate(&m) == nil {
			mappings = append(mappings, m)
		}
	}

	md := pmetric.NewMetrics()
	for ri := 0; ri < 1+r.IntN(2); ri++ {
		rm := md.ResourceMetrics().AppendEmpty()
		rm.Resource().Attributes().PutStr("service.name", "eng")
		rm.Resource().Attributes().PutStr("service.instance.id", fmt.Sprintf("10.0.0.%d:8000", ri))
		rm.Resource().Attributes().PutStr("k8s.pod.name", fmt.Sprintf("pod-%d", ri))
		ms := rm.ScopeMetrics().AppendEmpty().Metrics()
		for _, s := range append(append([]string{}, genSources...), genTargets[0]) {
			if r.IntN(4) == 0 {
				continue
			}
			addGenerated(r, ms.AppendEmpty(), s, types[s])
		}
	}
	return generated{mappings: mappings, input: md}
}

func dupLabel(ls []metricmapping.Label, name string) bool {
	for _, l := range ls {
		if l.Name == name {
			return true
		}
	}
	return false
}

func addGenerated(r *rand.Rand, m pmetric.Metric, name string, t pmetric.MetricType) {
	m.SetName(name)
	attrs := func(i int) map[string]any {
		a := map[string]any{"src": name, "k": fmt.Sprintf("x%d", r.IntN(3)), "code": strconv.Itoa(i)}
		if r.IntN(3) == 0 {
			a["replica"] = fmt.Sprintf("r%d", r.IntN(2))
		}
		return a
	}
	n := 1 + r.IntN(3)
	switch t {
	case pmetric.MetricTypeGauge, pmetric.MetricTypeSum:
		var dps pmetric.NumberDataPointSlice
		if t == pmetric.MetricTypeGauge {
			dps = m.SetEmptyGauge().DataPoints()
		} else {
			s := m.SetEmptySum()
			s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			s.SetIsMonotonic(true)
			dps = s.DataPoints()
		}
		for i := 0; i < n; i++ {
			dp := dps.AppendEmpty()
			_ = dp.Attributes().FromRaw(attrs(i))
			dp.SetDoubleValue(float64(r.IntN(100000)) / 10)
		}
	case pmetric.MetricTypeHistogram:
		h := m.SetEmptyHistogram()
		h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		for i := 0; i < n; i++ {
			dp := h.DataPoints().AppendEmpty()
			_ = dp.Attributes().FromRaw(attrs(i))
			dp.ExplicitBounds().FromRaw([]float64{1, 9, 25, 100, 2500})
			c := []uint64{uint64(r.IntN(5)), uint64(r.IntN(5)), uint64(r.IntN(5)), uint64(r.IntN(5)), uint64(r.IntN(5)), uint64(r.IntN(5))}
			dp.BucketCounts().FromRaw(c)
			var total uint64
			for _, x := range c {
				total += x
			}
			dp.SetCount(total)
			dp.SetSum(float64(r.IntN(100000)) / 10)
		}
	case pmetric.MetricTypeExponentialHistogram:
		h := m.SetEmptyExponentialHistogram()
		h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		for i := 0; i < n; i++ {
			dp := h.DataPoints().AppendEmpty()
			_ = dp.Attributes().FromRaw(attrs(i))
			dp.SetScale(int32(r.IntN(4)))
			dp.SetZeroCount(uint64(r.IntN(3)))
			total := dp.ZeroCount()
			for _, b := range []pmetric.ExponentialHistogramDataPointBuckets{dp.Positive(), dp.Negative()} {
				b.SetOffset(int32(r.IntN(5) - 2))
				c := []uint64{uint64(r.IntN(5)), uint64(r.IntN(5)), uint64(r.IntN(5))}
				b.BucketCounts().FromRaw(c)
				for _, x := range c {
					total += x
				}
			}
			dp.SetCount(total)
			dp.SetSum(float64(r.IntN(100000)) / 10)
		}
	case pmetric.MetricTypeSummary:
		s := m.SetEmptySummary()
		for i := 0; i < n; i++ {
			dp := s.DataPoints().AppendEmpty()
			_ = dp.Attributes().FromRaw(attrs(i))
			dp.SetCount(uint64(r.IntN(50)))
			dp.SetSum(float64(r.IntN(100000)) / 10)
			q := dp.QuantileValues().AppendEmpty()
			q.SetQuantile(0.5)
			q.SetValue(float64(r.IntN(1000)))
		}
	}
}

func digits12(_ string, v float64) string { return strconv.FormatFloat(v, 'g', 12, 64) }

// checkGeneratedParity runs one generated case through both pipelines.
func checkGeneratedParity(t *testing.T, g generated) {
	t.Helper()
	procs := anchorPipeline(t, "prop")
	procs["transform/modelplane"] = ottlFromMappings(g.mappings)
	ref := runReference(t, procs, g.input)

	cfg := createDefaultConfig()
	cfg.Builtin = nil
	for _, m := range g.mappings {
		cfg.Mappings = append(cfg.Mappings, InlineMapping{Name: m.Name, Metrics: m.Metrics})
	}
	require.NoError(t, cfg.Validate())
	ours := pmetric.NewMetrics()
	g.input.CopyTo(ours)
	setCluster(ours, "prop")
	p, sink := newTestProcessor(t, cfg)
	require.NoError(t, p.ConsumeMetrics(t.Context(), ours))
	got := pmetric.NewMetrics()
	for _, md := range sink.AllMetrics() {
		md.ResourceMetrics().MoveAndAppendTo(got.ResourceMetrics())
	}
	if diffs := compareSeries(series(ref, digits12), series(got, digits12)); len(diffs) > 0 {
		t.Fatalf("mappings %+v:\n%v", g.mappings, diffs)
	}
}

// Property: for generated mappings and metrics, ours and the reference (compiled to OTTL by
// Modelplane's rules) export the same series.
func TestParityOnGeneratedMappings(t *testing.T) {
	for seed := uint64(1); seed <= 150; seed++ {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			checkGeneratedParity(t, generate(rand.New(rand.NewPCG(seed, seed*7919))))
		})
	}
}

// FuzzParity drives the same generator from fuzzer input: `go test -fuzz FuzzParity`.
func FuzzParity(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(42), uint64(4242))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkGeneratedParity(t, generate(rand.New(rand.NewPCG(a, b))))
	})
}

// TestRepeatedPartIsExtractedOnce: two entries that take the same part of one histogram. The
// reference runs one extract statement per entry, so it emits the part twice; both copies
// carry the same name through every later phase (its renames select by name, so the second
// entry's `to` never applies), which makes them identical points of one series. Ours extracts
// the part once and follows the same rename chain. A backend keeps one sample per series and
// timestamp, so both export the same series with the same value.
func TestRepeatedPartIsExtractedOnce(t *testing.T) {
	mappings := []metricmapping.MetricMapping{
		{Name: "first", Metrics: []metricmapping.Entry{{From: "eng_latency", To: "modelplane_a", Part: metricmapping.PartCount}}},
		{Name: "second", Metrics: []metricmapping.Entry{{From: "eng_latency", To: "modelplane_b", Part: metricmapping.PartCount}}},
	}
	in := pmetric.NewMetrics()
	rm := in.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "eng")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("eng_latency")
	h := m.SetEmptyHistogram()
	h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dp := h.DataPoints().AppendEmpty()
	dp.SetCount(7)
	dp.SetSum(1.5)
	dp.Attributes().PutStr("code", "200")

	setCluster(in, "c") // as the reference's resource/cluster does
	ref, ours := runBoth(t, in, mappings...)

	counts := func(md pmetric.Metrics) []int64 {
		var out []int64
		points.WalkNumbers(md, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
			require.Equal(t, "modelplane_a", m.Name())
			out = append(out, dp.IntValue())
		})
		return out
	}
	assert.Equal(t, []int64{7, 7}, counts(ref), "the reference: the count twice, identical")
	assert.Equal(t, []int64{7}, counts(ours), "ours: once")
	assert.Equal(t, series(ref, exact), series(ours, exact))
}

// overlapAt finds where an Overlaps line says an entry's rename never applies.
var overlapAt = regexp.MustCompile(`^: MetricMapping "([^"]+)" metrics\[(\d+)\]: .*? never becomes `)

// What the overlap warning claims holds in the data: an entry it says never renames its
// source does nothing to the names that leave, whatever it would rename to. Checked on the
// generated mapping sets of the parity test (whose every source is in the batch) by giving
// each such entry a name of its own and looking for it in the output; and every set has its
// overlaps said, or not, as the processor runs them.
func TestOverlapsHoldInTheData(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	claims := 0
	for i := 0; i < 300; i++ {
		g := generate(r)
		for _, line := range rules.Overlaps(g.mappings) {
			m := overlapAt.FindStringSubmatch(line)
			if m == nil {
				continue // a second conversion
			}
			claims++
			idx, err := strconv.Atoi(m[2])
			require.NoError(t, err)
			probe := cloneMappings(g.mappings)
			for mi := range probe {
				if probe[mi].Name == m[1] {
					probe[mi].Metrics[idx].To = "modelplane_probe_never"
				}
			}
			cfg := createDefaultConfig()
			cfg.Builtin = nil
			for _, pm := range probe {
				cfg.Mappings = append(cfg.Mappings, InlineMapping{Name: pm.Name, Metrics: pm.Metrics})
			}
			require.NoError(t, cfg.Validate(), line)
			in := pmetric.NewMetrics()
			g.input.CopyTo(in)
			out := runOnce(t, cfg, in)
			rms := out.ResourceMetrics()
			for ri := 0; ri < rms.Len(); ri++ {
				sms := rms.At(ri).ScopeMetrics()
				for si := 0; si < sms.Len(); si++ {
					ms := sms.At(si).Metrics()
					for k := 0; k < ms.Len(); k++ {
						assert.NotEqual(t, "modelplane_probe_never", ms.At(k).Name(), line)
					}
				}
			}
		}
	}
	assert.Positive(t, claims, "the generated sets hold overlaps to check")
	t.Logf("%d claims checked", claims)
}

func cloneMappings(ms []metricmapping.MetricMapping) []metricmapping.MetricMapping {
	out := make([]metricmapping.MetricMapping, len(ms))
	for i, m := range ms {
		out[i] = m
		out[i].Metrics = append([]metricmapping.Entry(nil), m.Metrics...)
	}
	return out
}
