package modelplanemapping

// The reference: the processor chain Modelplane renders for the contrib collector
// (testdata/anchor/modelplane-pipeline.yaml), built from the contrib processors at v0.161.0,
// which are test-only dependencies. Parity tests and benchmarks run it beside ours.

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/filterprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/groupbyattrsprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourceprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/internal/metricmapping"
	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

const anchorDir = "../../testdata/anchor"

// referenceOrder is Modelplane's processor order in the metrics pipeline.
var referenceOrder = []string{"resource/cluster", "transform/identity", "transform/modelplane", "groupbyattrs/identity", "filter/modelplane"}

var referenceFactories = map[string]processor.Factory{
	"resource":     resourceprocessor.NewFactory(),
	"transform":    transformprocessor.NewFactory(),
	"groupbyattrs": groupbyattrsprocessor.NewFactory(),
	"filter":       filterprocessor.NewFactory(),
}

// anchorPipeline reads the reference pipeline with CLUSTER_NAME set to cluster.
func anchorPipeline(t testing.TB, cluster string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(anchorDir, "modelplane-pipeline.yaml"))
	require.NoError(t, err)
	var doc struct {
		Processors map[string]any `yaml:"processors"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(strings.ReplaceAll(string(raw), "${env:CLUSTER_NAME}", cluster)), &doc))
	return doc.Processors
}

// newReferenceChain builds the reference chain from processor configs in Modelplane's
// order, ending in next.
func newReferenceChain(t testing.TB, procs map[string]any, next consumer.Metrics) processor.Metrics {
	t.Helper()
	var head consumer.Metrics = next
	var started []processor.Metrics
	for i := len(referenceOrder) - 1; i >= 0; i-- {
		id := referenceOrder[i]
		f := referenceFactories[strings.Split(id, "/")[0]]
		cfg := f.CreateDefaultConfig()
		require.NoError(t, confmap.NewFromStringMap(procs[id].(map[string]any)).Unmarshal(cfg), id)
		require.NoError(t, confmap.Validate(cfg), id)
		p, err := f.CreateMetrics(context.Background(), processortest.NewNopSettings(f.Type()), cfg, head)
		require.NoError(t, err, id)
		require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
		started = append(started, p)
		head = p
	}
	t.Cleanup(func() {
		for _, p := range started {
			require.NoError(t, p.Shutdown(context.Background()))
		}
	})
	return head.(processor.Metrics)
}

// ottlFromMappings renders mappings to the transform/modelplane config by Modelplane's
// rules: four statement groups, each run over the whole batch before the next: part
// extraction, unit conversion, labels, rename.
func ottlFromMappings(mappings []metricmapping.MetricMapping) map[string]any {
	var extract, scale, labels, rename []any
	q := strconv.Quote
	for _, m := range mappings {
		for _, e := range m.Metrics {
			name := e.From
			switch e.Part {
			case metricmapping.PartCount:
				extract = append(extract, fmt.Sprintf("extract_count_metric(true) where metric.name == %s", q(e.From)))
				name = e.From + "_count"
			case metricmapping.PartSum:
				extract = append(extract, fmt.Sprintf("extract_sum_metric(true) where metric.name == %s", q(e.From)))
				name = e.From + "_sum"
			}
			if e.FromUnit != "" {
				u, _ := units.Parse(e.FromUnit)
				scale = append(scale, fmt.Sprintf("scale_metric(%s) where metric.name == %s", referenceFactor(u), q(name)))
			}
			for _, l := range e.Labels {
				where := "metric.name == " + q(name)
				attr := func(k string) string { return "datapoint.attributes[" + q(k) + "]" }
				if l.Value != nil {
					labels = append(labels, fmt.Sprintf("set(%s, %s) where %s", attr(l.Name), q(*l.Value), where))
					continue
				}
				labels = append(labels, fmt.Sprintf("set(%s, %s) where %s", attr(l.Name), attr(l.From), where))
				keys := make([]string, 0, len(l.Values))
				for k := range l.Values {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					labels = append(labels, fmt.Sprintf("set(%s, %s) where %s and %s == %s", attr(l.Name), q(l.Values[k]), where, attr(l.From), q(k)))
				}
				if l.From != l.Name {
					labels = append(labels, fmt.Sprintf("delete_key(datapoint.attributes, %s) where %s", q(l.From), where))
				}
			}
			rename = append(rename, fmt.Sprintf("set(metric.name, %s) where metric.name == %s", q(e.To), q(name)))
		}
	}
	var groups []any
	add := func(ctx string, ignore bool, stmts []any) {
		if len(stmts) == 0 {
			return
		}
		g := map[string]any{"context": ctx, "statements": stmts}
		if ignore {
			g["error_mode"] = "ignore"
		}
		groups = append(groups, g)
	}
	add("metric", true, extract)
	add("metric", true, scale)
	add("datapoint", false, labels)
	add("metric", false, rename)
	return map[string]any{"metric_statements": groups}
}

// referenceFactor is the literal Modelplane's compiler writes: a multiplication.
func referenceFactor(u units.Unit) string {
	f := u.Convert(1)
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64) // OTTL has no exponent notation
}

// series flattens metrics into one line per point: resource and point attributes, name and
// type, with the value rendered by render. Grouping into resources, scopes and metrics, and
// the order of all of them, do not matter to a backend, so they do not matter here. An
// attribute with an empty value is left out, as Prometheus leaves out an empty label: the
// reference's OTTL `set` from a missing label writes an empty one, where ours writes none.
// Where several points share a series (mappings that collide on one target), the line holds
// each distinct value once, sorted: which of them a backend keeps is its own rule, and an
// exact duplicate point adds nothing (TestRepeatedPartIsExtractedOnce).
func series(md pmetric.Metrics, render func(name string, v float64) string) map[string]string {
	values := map[string]map[string]bool{}
	attrs := func(m pcommon.Map) string {
		kv := make([]string, 0, m.Len())
		m.Range(func(k string, v pcommon.Value) bool {
			if s := v.AsString(); s != "" {
				kv = append(kv, k+"="+s)
			}
			return true
		})
		sort.Strings(kv)
		return "{" + strings.Join(kv, ",") + "}"
	}
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		rm := md.ResourceMetrics().At(i)
		res := attrs(rm.Resource().Attributes())
		for j := 0; j < rm.ScopeMetrics().Len(); j++ {
			ms := rm.ScopeMetrics().At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				name := m.Name()
				put := func(a pcommon.Map, v string) {
					key := res + " " + name + " " + m.Type().String() + attrs(a)
					if values[key] == nil {
						values[key] = map[string]bool{}
					}
					values[key][v] = true
				}
				num := func(dps pmetric.NumberDataPointSlice) {
					for d := 0; d < dps.Len(); d++ {
						dp := dps.At(d)
						v := dp.DoubleValue()
						if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
							v = float64(dp.IntValue())
						}
						put(dp.Attributes(), render(name, v))
					}
				}
				switch m.Type() {
				case pmetric.MetricTypeGauge:
					num(m.Gauge().DataPoints())
				case pmetric.MetricTypeSum:
					num(m.Sum().DataPoints())
				case pmetric.MetricTypeHistogram:
					dps := m.Histogram().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						dp := dps.At(d)
						var b strings.Builder
						fmt.Fprintf(&b, "count=%d sum=%s le=", dp.Count(), render(name, dp.Sum()))
						for x := 0; x < dp.ExplicitBounds().Len(); x++ {
							b.WriteString(render(name, dp.ExplicitBounds().At(x)) + ",")
						}
						fmt.Fprintf(&b, " buckets=%v", dp.BucketCounts().AsRaw())
						put(dp.Attributes(), b.String())
					}
				case pmetric.MetricTypeSummary:
					dps := m.Summary().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						dp := dps.At(d)
						s := fmt.Sprintf("count=%d sum=%s", dp.Count(), render(name, dp.Sum()))
						for x := 0; x < dp.QuantileValues().Len(); x++ {
							s += fmt.Sprintf(" q%v=%s", dp.QuantileValues().At(x).Quantile(), render(name, dp.QuantileValues().At(x).Value()))
						}
						put(dp.Attributes(), s)
					}
				case pmetric.MetricTypeExponentialHistogram:
					dps := m.ExponentialHistogram().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						dp := dps.At(d)
						put(dp.Attributes(), fmt.Sprintf("count=%d sum=%s scale=%d zero=%d positive=%d%v negative=%d%v",
							dp.Count(), render(name, dp.Sum()), dp.Scale(), dp.ZeroCount(),
							dp.Positive().Offset(), dp.Positive().BucketCounts().AsRaw(), dp.Negative().Offset(), dp.Negative().BucketCounts().AsRaw()))
					}
				}
			}
		}
	}
	out := make(map[string]string, len(values))
	for k, vs := range values {
		out[k] = strings.Join(slices.Sorted(maps.Keys(vs)), " | ")
	}
	return out
}

func exact(_ string, v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// compareSeries reports every series that one side has and the other lacks or holds with
// another value.
func compareSeries(want, got map[string]string) []string {
	var diffs []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, "only in reference: "+k+" = "+w)
		case g != w:
			diffs = append(diffs, "differs: "+k+": reference "+w+", ours "+g)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, "only in ours: "+k+" = "+g)
		}
	}
	sort.Strings(diffs)
	return diffs
}

var _ component.Config = (*Config)(nil)
