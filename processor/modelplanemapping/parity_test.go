// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.yaml.in/yaml/v3"

	datapoints "github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/internal/units"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// anchorMappings are Modelplane's 29 built-ins, as the reference runs them.
func anchorMappings(t testing.TB) []metricmapping.MetricMapping {
	t.Helper()
	path := filepath.Join(anchorDir, "modelplane-builtins.yaml")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	res := metricmapping.Decode(path, data)
	require.Empty(t, res.Errors)
	require.Len(t, res.Mappings, 5)
	return res.Mappings
}

// The OTTL compiler of these tests renders the anchor built-ins exactly as Modelplane does,
// so generated mappings run through the reference exactly as Modelplane would run them.
func TestOTTLCompilerReproducesAnchorPipeline(t *testing.T) {
	got := ottlFromMappings(anchorMappings(t))
	want := anchorPipeline(t, "c")["transform/modelplane"].(map[string]any)
	gotYAML, err := yaml.Marshal(got)
	require.NoError(t, err)
	wantYAML, err := yaml.Marshal(want)
	require.NoError(t, err)
	assert.Equal(t, string(wantYAML), string(gotYAML))
}

// ourChainConfig is our processor configured like the reference: the anchor built-ins from
// their file and nothing else.
func ourChainConfig(t testing.TB) *Config {
	cfg := createDefaultConfig()
	cfg.Builtin = nil
	cfg.MappingFiles = []string{filepath.Join(anchorDir, "modelplane-builtins.yaml")}
	require.NoError(t, cfg.Validate())
	return cfg
}

// setCluster is the resource/cluster processor both pipelines run first.
func setCluster(md pmetric.Metrics, cluster string) {
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		md.ResourceMetrics().At(i).Resource().Attributes().PutStr("cluster", cluster)
	}
}

// The shared expositions, as the Prometheus receiver emits them, give the same series
// through our processor and through the reference chain, except the reference's defects:
// with every page in the text format, and with vLLM and SGLang answering in OpenMetrics, as
// they do when the receiver asks (start times from `_created`, no `_created` gauges).
func TestParityOnSharedExpositions(t *testing.T) {
	scrapetest.InBothFormats(t, scrapetest.Fleet(4, 4), parityOnSharedExpositions)
}

func parityOnSharedExpositions(t *testing.T, fleet []scrapetest.Target) {
	in, err := scrapetest.Scrape(context.Background(), fleet)
	require.NoError(t, err)
	require.Positive(t, in.DataPointCount())

	ref := runReference(t, anchorPipeline(t, "prod"), in)
	exactJoules := energyReadings(in, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", func(mJ float64) float64 {
		j, _ := new(big.Rat).Quo(new(big.Rat).SetFloat64(mJ), big.NewRat(1000, 1)).Float64()
		return j
	})

	ours := in
	setCluster(ours, "prod")
	ours = runOnce(t, ourChainConfig(t), ours)

	// Defect 1: the reference multiplies mJ by 0.001 where we divide exactly. Render each
	// side's energy values back to the source unit's exact decimal to compare the readings,
	// and check the exact values separately below.
	want := series(ref, exact)
	got := series(ours, exact)
	var defects []string
	for _, d := range compareSeries(want, got) {
		if strings.Contains(d, "modelplane_energy_joules_total") && strings.HasPrefix(d, "differs") {
			defects = append(defects, d)
			continue
		}
		t.Error(d)
	}
	assert.NotEmpty(t, want)
	t.Logf("%d series agree; %d differ only by the reference's inexact mJ scaling", len(want)-len(defects), len(defects))
	// Their exact values: each of ours is its reading in mJ divided by 1000, the float64
	// nearest that decimal (math/big, independent of internal/units).
	require.NotEmpty(t, exactJoules)
	assert.Equal(t, exactJoules, energyReadings(ours, "modelplane_energy_joules_total", func(j float64) float64 { return j }))

	for k := range got {
		assert.True(t, strings.Contains(k, " modelplane_"), "not modelplane_*: %s", k)
		assert.Contains(t, k, "cluster=prod")
	}
}

// runBoth runs mappings alone (no built-ins) through the reference chain and through ours.
func runBoth(t *testing.T, in pmetric.Metrics, ms ...metricmapping.MetricMapping) (ref, ours pmetric.Metrics) {
	procs := anchorPipeline(t, "c")
	procs["transform/modelplane"] = ottlFromMappings(ms)
	ref = runReference(t, procs, in)
	cfg := createDefaultConfig()
	cfg.Builtin = nil
	for _, m := range ms {
		cfg.Mappings = append(cfg.Mappings, InlineMapping{Name: m.Name, Metrics: m.Metrics})
	}
	require.NoError(t, cfg.Validate())
	return ref, runOnce(t, cfg, in)
}

// Defect: `scale_metric(0.001)` gives floats that are not the nearest to the decimal
// result, so converted histogram bounds stop matching an engine that reports seconds.
func TestDefectInexactScaling(t *testing.T) {
	m := metricmapping.MetricMapping{Name: "ms", Metrics: []metricmapping.Entry{{From: "kv_ms", To: "modelplane_request_kv_transfer_seconds", FromUnit: "Milliseconds"}}}
	in := pmetric.NewMetrics()
	rm := in.ResourceMetrics().AppendEmpty()
	h := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	h.SetName("kv_ms")
	dp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
	dp.ExplicitBounds().FromRaw([]float64{1, 3, 9, 30, 90, 300})
	dp.BucketCounts().FromRaw([]uint64{1, 1, 1, 1, 1, 1, 1})
	dp.SetCount(7)
	dp.SetSum(433)

	ref, ours := runBoth(t, in, m)

	refBounds := ref.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Histogram().DataPoints().At(0).ExplicitBounds().AsRaw()
	ourBounds := ours.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Histogram().DataPoints().At(0).ExplicitBounds().AsRaw()
	// What vLLM itself publishes for the same buckets in seconds.
	native := []float64{0.001, 0.003, 0.009, 0.03, 0.09, 0.3}
	assert.Equal(t, native, ourBounds)
	assert.NotEqual(t, native, refBounds)
	assert.Equal(t, 0.009000000000000001, refBounds[2])
}

// Defect: the reference truncates integer points when it scales them (1500 ms -> 1 s).
func TestDefectIntegerTruncation(t *testing.T) {
	m := metricmapping.MetricMapping{Name: "ms", Metrics: []metricmapping.Entry{{From: "q_ms", To: "modelplane_q_seconds", FromUnit: "Milliseconds"}}}
	in := pmetric.NewMetrics()
	g := in.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	g.SetName("q_ms")
	g.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1500)

	ref, ours := runBoth(t, in, m)

	refDP := ref.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Gauge().DataPoints().At(0)
	ourDP := ours.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Gauge().DataPoints().At(0)
	assert.Equal(t, int64(1), refDP.IntValue())
	assert.Equal(t, 1.5, ourDP.DoubleValue())
}

// Defect: the reference leaves the unit and a description naming MiB on a value in bytes,
// leaves every renamed metric's unit as the source had it (usually empty), and exports exponential histograms unconverted under the new name.
func TestDefectUnitsDescriptionsAndExponential(t *testing.T) {
	in := pmetric.NewMetrics()
	ms := in.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	fb := ms.AppendEmpty()
	fb.SetName("DCGM_FI_DEV_FB_USED")
	fb.SetDescription("Framebuffer memory used (in MiB).")
	fb.SetEmptyGauge().DataPoints().AppendEmpty().SetDoubleValue(81559)
	pw := ms.AppendEmpty()
	pw.SetName("DCGM_FI_DEV_POWER_USAGE")
	pw.SetEmptyGauge().DataPoints().AppendEmpty().SetDoubleValue(692.44)
	e := ms.AppendEmpty()
	e.SetName("lat_ms")
	edp := e.SetEmptyExponentialHistogram().DataPoints().AppendEmpty()
	edp.SetScale(0)
	edp.SetCount(1)
	edp.SetSum(3)
	edp.Positive().SetOffset(1)
	edp.Positive().BucketCounts().FromRaw([]uint64{1})

	mappings := append(anchorMappings(t), metricmapping.MetricMapping{Name: "exp", Metrics: []metricmapping.Entry{{From: "lat_ms", To: "modelplane_request_duration_seconds", FromUnit: "Milliseconds"}}})
	procs := anchorPipeline(t, "c")
	procs["transform/modelplane"] = ottlFromMappings(mappings)
	ref := runReference(t, procs, in)
	cfg := createDefaultConfig()
	cfg.Builtin = nil
	cfg.MappingFiles = []string{filepath.Join(anchorDir, "modelplane-builtins.yaml")}
	cfg.Mappings = []InlineMapping{{Name: "exp", Metrics: mappings[5].Metrics}}
	ours := runOnce(t, cfg, in)

	byName := func(md pmetric.Metrics) map[string]pmetric.Metric {
		out := map[string]pmetric.Metric{}
		ms := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
		for i := 0; i < ms.Len(); i++ {
			out[ms.At(i).Name()] = ms.At(i)
		}
		return out
	}
	r, o := byName(ref), byName(ours)
	assert.Equal(t, "Framebuffer memory used (in MiB).", r["modelplane_gpu_memory_used_bytes"].Description())
	assert.Empty(t, r["modelplane_gpu_memory_used_bytes"].Unit())
	// Ours: the target's one canonical description (a user target gets the source's, with
	// the unit corrected: golden case unit_dcgm_description).
	assert.Equal(t, "GPU framebuffer memory in use, in bytes.", o["modelplane_gpu_memory_used_bytes"].Description())
	assert.Equal(t, "By", o["modelplane_gpu_memory_used_bytes"].Unit())
	// Without a conversion too: the reference keeps the source's empty unit under a name
	// that says watts; ours takes the unit the name declares.
	assert.Empty(t, r["modelplane_gpu_power_watts"].Unit())
	assert.Equal(t, "W", o["modelplane_gpu_power_watts"].Unit())

	// Reference: still exponential, still 3 (ms) under a seconds name.
	require.Equal(t, pmetric.MetricTypeExponentialHistogram, r["modelplane_request_duration_seconds"].Type())
	assert.Equal(t, 3.0, r["modelplane_request_duration_seconds"].ExponentialHistogram().DataPoints().At(0).Sum())
	// Ours: seconds, counts intact.
	oh := o["modelplane_request_duration_seconds"]
	require.Equal(t, pmetric.MetricTypeHistogram, oh.Type())
	assert.Equal(t, 0.003, oh.Histogram().DataPoints().At(0).Sum())
	assert.Equal(t, uint64(1), oh.Histogram().DataPoints().At(0).Count())
	assert.Equal(t, []float64{0, 0.002, 0.004}, oh.Histogram().DataPoints().At(0).ExplicitBounds().AsRaw())
	assert.Equal(t, "s", oh.Unit())
	_ = units.Milliseconds
}

// Switching from the reference to otelcol-modelplane's defaults (the built-in catalog, not
// the anchor's file): every series the reference writes for the shared pages continues
// under the same name and labels with the same value (apart from the mJ scaling defect), and
// the catalog's other sources only add series. docs/migrating.md rests on this.
// energyReadings counts the values of metric name's points in md, each as f makes it.
func energyReadings(md pmetric.Metrics, name string, f func(float64) float64) map[float64]int {
	out := map[float64]int{}
	datapoints.WalkNumbers(md, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
		if m.Name() == name && !dp.Flags().NoRecordedValue() {
			v := dp.DoubleValue()
			if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
				v = float64(dp.IntValue())
			}
			out[f(v)]++
		}
	})
	return out
}

func TestCatalogContinuesEveryReferenceSeries(t *testing.T) {
	scrapetest.InBothFormats(t, scrapetest.Fleet(4, 4), func(t *testing.T, fleet []scrapetest.Target) {
		in, err := scrapetest.Scrape(context.Background(), fleet)
		require.NoError(t, err)
		want := series(runReference(t, anchorPipeline(t, "prod"), in), exact)

		setCluster(in, "prod")
		got := series(runOnce(t, createDefaultConfig(), in), exact)

		var added []string
		for _, d := range compareSeries(want, got) {
			switch {
			case strings.HasPrefix(d, "only in ours: "):
				added = append(added, d)
			case strings.HasPrefix(d, "differs") && strings.Contains(d, "modelplane_energy_joules_total"):
			default:
				t.Error(d)
			}
		}
		require.NotEmpty(t, want)
		assert.NotEmpty(t, added, "the catalog maps sources the reference does not")
		t.Logf("%d reference series continue; the catalog adds %d", len(want), len(added))
	})
}
