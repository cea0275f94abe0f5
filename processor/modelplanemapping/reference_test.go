// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

// The reference: the processor chain Modelplane renders for the contrib collector
// (testdata/anchor/modelplane-pipeline.yaml), built from contrib's OTTL processors at the
// release Modelplane renders for. It lives in its own module (bench/reference), so these
// tests run it as a process, bench/reference/cmd/reference-pipeline, one per test binary.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// referenceProcess is the running reference-pipeline, started by the first test that needs it
// and ended with the test binary (its standard input closes).
var referenceProcess = sync.OnceValues(startReference)

type referenceClient struct {
	mu  sync.Mutex
	in  io.Writer
	out io.Reader
}

// startReference runs $REFERENCE_PIPELINE_BIN (the Makefile builds it), or builds the
// program from bench/reference when that is unset, which takes a few minutes on a cold cache.
func startReference() (*referenceClient, error) {
	bin := os.Getenv("REFERENCE_PIPELINE_BIN")
	if bin == "" {
		dir, err := os.MkdirTemp("", "reference-pipeline")
		if err != nil {
			return nil, err
		}
		bin = filepath.Join(dir, "reference-pipeline")
		build := exec.Command("go", "build", "-o", bin, "./cmd/reference-pipeline")
		build.Dir = "../../bench/reference"
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("REFERENCE_PIPELINE_BIN is unset, and building bench/reference/cmd/reference-pipeline failed: %w\n%s", err, out)
		}
	}
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the reference pipeline %s: %w", bin, err)
	}
	return &referenceClient{in: in, out: out}, nil
}

// runReference runs the reference chain, configured by procs, on in, which it leaves as it is.
func runReference(t testing.TB, procs map[string]any, in pmetric.Metrics) pmetric.Metrics {
	t.Helper()
	c, err := referenceProcess()
	require.NoError(t, err)
	rawCfg, err := json.Marshal(procs)
	require.NoError(t, err)
	rawMD, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(in)
	require.NoError(t, err)
	var req bytes.Buffer
	for _, b := range [][]byte{rawCfg, rawMD} {
		req.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
		req.Write(b)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.in.Write(req.Bytes())
	require.NoError(t, err, "writing to the reference pipeline")
	var head [5]byte
	_, err = io.ReadFull(c.out, head[:])
	require.NoError(t, err, "reading from the reference pipeline")
	payload := make([]byte, binary.BigEndian.Uint32(head[1:]))
	_, err = io.ReadFull(c.out, payload)
	require.NoError(t, err, "reading from the reference pipeline")
	require.Zero(t, head[0], "the reference pipeline: %s", payload)
	out, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(payload)
	require.NoError(t, err)
	return out
}

const anchorDir = "../../testdata/anchor"

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
	groups := []any{}
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
