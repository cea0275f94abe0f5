// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/rules"
)

// FuzzProcessor runs the processor on arbitrary configs (inline mappings, built-in selection,
// identity keys, drop_unmapped) and arbitrary OTLP batches, seeded with every golden case:
// `go test -run '^$' -fuzz FuzzProcessor ./processor/modelplanemapping/`. Whatever it is given,
// it must not panic, and what it exports must be well-formed (checkExport).
func FuzzProcessor(f *testing.F) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	require.NoError(f, err)
	require.NotEmpty(f, inputs)
	for _, in := range inputs {
		cfg, err := os.ReadFile(filepath.Join(filepath.Dir(in), "config.yaml"))
		require.NoError(f, err)
		_, ok := fuzzConfig(cfg)
		require.True(f, ok, "%s: the seed's config must load, or the fuzzer starts from nothing", in)
		md, err := golden.ReadMetrics(in)
		require.NoError(f, err)
		batch, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		require.NoError(f, err)
		f.Add(cfg, batch)
	}
	f.Fuzz(func(t *testing.T, cfgYAML, batch []byte) {
		cfg, ok := fuzzConfig(cfgYAML)
		if !ok {
			return
		}
		in, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(batch)
		if err != nil {
			return
		}
		wellFormedIn := histogramsWellFormed(in)
		p, sink := newTestProcessor(t, cfg)
		require.NoError(t, p.ConsumeMetrics(context.Background(), in))
		for _, out := range sink.AllMetrics() {
			checkExport(t, cfg, out, wellFormedIn)
		}
	})
}

// fuzzConfig reads a processor config as the collector does, without mapping files (the
// fuzzer must not make the processor read the file system).
func fuzzConfig(data []byte) (*Config, bool) {
	retrieved, err := confmap.NewRetrievedFromYAML(data)
	if err != nil {
		return nil, false
	}
	conf, err := retrieved.AsConf()
	if err != nil {
		return nil, false
	}
	cfg := createDefaultConfig()
	if err := conf.Unmarshal(cfg); err != nil {
		return nil, false
	}
	cfg.MappingFiles = nil
	cfg.ScrapeFilter = false
	return cfg, cfg.Validate() == nil
}

// checkExport asserts what any batch the processor exports must be: it marshals and reads
// back whole; with drop_unmapped, only modelplane_* metrics; no empty resource or scope;
// with identity, only identity attributes on resources and none left on points; and, where
// every histogram it was given was well formed, only well-formed histograms.
func checkExport(t *testing.T, cfg *Config, out pmetric.Metrics, wellFormedIn bool) {
	t.Helper()
	raw, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(out)
	require.NoError(t, err)
	back, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(raw)
	require.NoError(t, err)
	require.Equal(t, out.DataPointCount(), back.DataPointCount())

	keys := map[string]bool{}
	for _, k := range cfg.Identity.Keys {
		keys[k] = true
	}
	rms := out.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		rm := rms.At(i)
		require.NotZero(t, rm.ScopeMetrics().Len(), "an empty resource is exported")
		if cfg.Identity.Enabled {
			for k := range rm.Resource().Attributes().All() {
				require.True(t, keys[k], "resource attribute %q is not an identity key", k)
			}
		}
		for j := 0; j < rm.ScopeMetrics().Len(); j++ {
			ms := rm.ScopeMetrics().At(j).Metrics()
			require.NotZero(t, ms.Len(), "an empty scope is exported")
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				if cfg.DropUnmapped {
					require.True(t, strings.HasPrefix(m.Name(), rules.TargetPrefix), "metric %q is exported", m.Name())
				}
				if wellFormedIn {
					requireWellFormed(t, m)
				}
			}
		}
	}
	if cfg.Identity.Enabled {
		points.Walk(out, func(_ pcommon.Map, m pmetric.Metric, attrs pcommon.Map) {
			for k := range attrs.All() {
				require.False(t, keys[k], "identity attribute %q is left on a point of %q", k, m.Name())
			}
		})
	}
}

// histogramsWellFormed reports whether every explicit-bounds histogram point of md has
// finite, strictly increasing bounds and either no buckets or one more bucket than bounds.
func histogramsWellFormed(md pmetric.Metrics) bool {
	ok := true
	points.EachMetric(md, func(_ pcommon.Map, m pmetric.Metric) {
		if m.Type() == pmetric.MetricTypeHistogram && !histogramWellFormed(m.Histogram()) {
			ok = false
		}
	})
	return ok
}

func histogramWellFormed(h pmetric.Histogram) bool {
	for i := 0; i < h.DataPoints().Len(); i++ {
		dp := h.DataPoints().At(i)
		b := dp.ExplicitBounds()
		if n := dp.BucketCounts().Len(); n != 0 && n != b.Len()+1 {
			return false
		}
		for j := 0; j < b.Len(); j++ {
			if math.IsNaN(b.At(j)) || math.IsInf(b.At(j), 0) || (j > 0 && b.At(j) <= b.At(j-1)) {
				return false
			}
		}
	}
	return true
}

func requireWellFormed(t *testing.T, m pmetric.Metric) {
	t.Helper()
	if m.Type() == pmetric.MetricTypeHistogram {
		require.True(t, histogramWellFormed(m.Histogram()), "histogram %q is exported malformed", m.Name())
	}
}

// FuzzReloadEnd runs one batch through the mappings of two arbitrary configs, as the
// processor does with the first batch of a source after a reload (reloadend.go): the first
// config's mappings are the previous set, the second's the current one with its options and
// identity. Whatever the mappings and the batch, the output must hold every point the current
// set produced, unchanged, plus exactly one marker per point of a series the previous set
// produced and the current one does not, and pass checkExport.
// `go test -run '^$' -fuzz FuzzReloadEnd ./processor/modelplanemapping/`.
func FuzzReloadEnd(f *testing.F) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	require.NoError(f, err)
	var cfgs [][]byte
	for _, in := range inputs {
		cfg, err := os.ReadFile(filepath.Join(filepath.Dir(in), "config.yaml"))
		require.NoError(f, err)
		cfgs = append(cfgs, cfg)
	}
	for i, in := range inputs {
		md, err := golden.ReadMetrics(in)
		require.NoError(f, err)
		batch, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		require.NoError(f, err)
		f.Add(cfgs[(i+1)%len(cfgs)], cfgs[i], batch)
	}
	f.Fuzz(func(t *testing.T, previousYAML, currentYAML, batch []byte) {
		previousCfg, ok := fuzzConfig(previousYAML)
		if !ok {
			return
		}
		cfg, ok := fuzzConfig(currentYAML)
		if !ok {
			return
		}
		in, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(batch)
		if err != nil {
			return
		}
		previous, err := newProcessor(processortestSettings(), previousCfg)
		require.NoError(t, err)
		p, err := newProcessor(processortestSettings(), cfg)
		require.NoError(t, err)
		run := func(set *rules.Set) pmetric.Metrics {
			md := pmetric.NewMetrics()
			in.CopyTo(md)
			set.Apply(md, p.opts, &rules.Stats{})
			p.keepIdentity(md)
			return md
		}
		before, after := run(previous.active.Load()), run(p.active.Load())
		live := seriesPoints(after, false)
		want := seriesPoints(after, true)
		var ended int64
		for key, n := range seriesPoints(before, false) {
			if live[key] == 0 {
				want[key+" ended"] += n
				ended += int64(n)
			}
		}
		require.Equal(t, ended, endMissing(before, after))
		require.Equal(t, want, seriesPoints(after, true))
		checkExport(t, cfg, after, histogramsWellFormed(in))
	})
}

// seriesPoints counts the points of md per series (name and attributes of resource and
// point); with markers, a marker counts apart, under the key with " ended".
func seriesPoints(md pmetric.Metrics, markers bool) map[string]int {
	var keys points.Keys
	out := map[string]int{}
	points.EachMetric(md, func(res pcommon.Map, m pmetric.Metric) {
		eachPoint(m, func(attrs pcommon.Map, flags pmetric.DataPointFlags) {
			key := keys.Of(m.Name(), res, attrs)
			if markers && flags.NoRecordedValue() {
				key += " ended"
			}
			out[key]++
		})
	})
	return out
}

// eachPoint calls f with the attributes and flags of every point of m.
func eachPoint(m pmetric.Metric, f func(pcommon.Map, pmetric.DataPointFlags)) {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		for _, dp := range m.Gauge().DataPoints().All() {
			f(dp.Attributes(), dp.Flags())
		}
	case pmetric.MetricTypeSum:
		for _, dp := range m.Sum().DataPoints().All() {
			f(dp.Attributes(), dp.Flags())
		}
	case pmetric.MetricTypeHistogram:
		for _, dp := range m.Histogram().DataPoints().All() {
			f(dp.Attributes(), dp.Flags())
		}
	case pmetric.MetricTypeExponentialHistogram:
		for _, dp := range m.ExponentialHistogram().DataPoints().All() {
			f(dp.Attributes(), dp.Flags())
		}
	case pmetric.MetricTypeSummary:
		for _, dp := range m.Summary().DataPoints().All() {
			f(dp.Attributes(), dp.Flags())
		}
	}
}
