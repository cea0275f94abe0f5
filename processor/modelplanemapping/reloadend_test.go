// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/value"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadatatest"
)

// A user's mapping before and after an edit: a label added to the series of a built-in
// (vLLM's finished requests, modelplane_responses_total) and a histogram renamed. The
// built-ins, which produce every other series, do not change.
const (
	userMappingBefore = `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: user}
spec:
  metrics:
  - from: "vllm:inter_token_latency_seconds"
    to: modelplane_inter_token_latency_seconds
`
	userMappingAfter = `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: user}
spec:
  metrics:
  - from: "vllm:request_success_total"
    to: modelplane_responses_total
    labels:
    - {name: tier, value: gold}
  - from: "vllm:inter_token_latency_seconds"
    to: modelplane_itl_seconds
`
)

// A mapping reload ends the series it stops producing with staleness markers in the next
// batch of each source, so remote write ends them in the backend at once instead of letting
// them answer beside their replacements for five minutes; the series it still produces get
// no marker, and a source's later batches carry none.
func TestReloadEndsTheSeriesItStops(t *testing.T) {
	scraped, err := scrapetest.Scrape(context.Background(), scrapetest.Fleet(2, 2))
	require.NoError(t, err)
	batches := perSource(scraped) // vllm, sglang, gateway, picker, dcgm-exporter: as the receiver sends them
	require.Len(t, batches, 5)
	i := slices.IndexFunc(batches, func(md pmetric.Metrics) bool { return isJob(md, "vllm") })
	require.GreaterOrEqual(t, i, 0)
	vllm := batches[i]
	others := slices.Delete(slices.Clone(batches), i, i+1)

	dir := t.TempDir()
	file := filepath.Join(dir, "user.yaml")
	require.NoError(t, os.WriteFile(file, []byte(userMappingBefore), 0o600))
	cfg := createDefaultConfig()
	cfg.MappingFiles = []string{file}
	cfg.ReloadInterval = time.Hour // reloaded by hand below
	require.NoError(t, cfg.Validate())
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	p, err := newProcessor(metadatatest.NewSettings(tel), cfg)
	require.NoError(t, err)
	require.NoError(t, p.start(context.Background(), componenttest.NewNopHost()))
	defer func() { require.NoError(t, p.shutdown(context.Background())) }()
	process := func(in pmetric.Metrics) map[string]float64 {
		md := pmetric.NewMetrics()
		in.CopyTo(md)
		out, err := p.processMetrics(context.Background(), md)
		require.NoError(t, err)
		return remoteWriteSeries(t, out)
	}

	before := map[string]float64{}
	for _, b := range batches {
		for s, v := range process(b) {
			before[s] = v
		}
	}
	ended := func(s string) bool {
		return strings.HasPrefix(s, "modelplane_inter_token_latency_seconds") ||
			strings.HasPrefix(s, "modelplane_responses_total{") && strings.Contains(s, "job=vllm-") && !strings.Contains(s, "tier=gold")
	}
	var toEnd []string
	for s := range before {
		if ended(s) {
			toEnd = append(toEnd, s)
		}
	}
	require.NotEmpty(t, toEnd)

	require.NoError(t, os.WriteFile(file, []byte(userMappingAfter), 0o600))
	p.reload(false)

	after := process(vllm)
	for s, v := range after {
		switch {
		case ended(s):
			assert.True(t, value.IsStaleNaN(v), "%s = %v: a series the reload stopped must end", s, v)
		default:
			assert.False(t, math.IsNaN(v), "%s = %v: a series the mappings produce must not end", s, v)
		}
	}
	for _, s := range toEnd {
		assert.Contains(t, after, s, "ended series without a marker")
	}
	var finished, itl int
	for s := range after {
		if strings.HasPrefix(s, "modelplane_responses_total{") && strings.Contains(s, "tier=gold") {
			finished++
		}
		if strings.HasPrefix(s, "modelplane_itl_seconds_") {
			itl++
		}
	}
	assert.Equal(t, 22, itl, "the renamed histogram: 20 buckets, _sum and _count")
	assert.Equal(t, 5, finished, "one series per finish reason, now labelled")
	// Every series before the reload is either still produced or ended.
	for s := range before {
		if strings.Contains(s, "job=vllm-") {
			assert.Contains(t, after, s)
		}
	}
	t.Logf("%d series ended, %d produced", len(toEnd), len(after)-len(toEnd))

	// The source's next batch, and a source whose output the reload does not change, carry
	// no marker.
	for _, b := range [][]pmetric.Metrics{{vllm}, others} {
		for _, in := range b {
			for s, v := range process(in) {
				assert.False(t, math.IsNaN(v), s)
			}
		}
	}
	metadatatest.AssertEqualProcessorModelplaneMappingSeriesEnded(t, tel, []metricdata.DataPoint[int64]{{
		Value:      int64(5 + 1), // five finish reasons and one histogram
		Attributes: attribute.NewSet(attribute.String("processor", "modelplane_mapping")),
	}}, metricdatatest.IgnoreTimestamp())

	// Past the window the previous mappings are let go: a reload whose first batch comes too
	// late ends nothing (the backend's lookback has by then).
	p.ending.window = 0
	require.NoError(t, os.WriteFile(file, []byte(userMappingBefore), 0o600))
	p.reload(false)
	for s, v := range process(vllm) {
		assert.False(t, math.IsNaN(v), s)
	}
	assert.False(t, p.ending.active.Load())
}

func isJob(md pmetric.Metrics, job string) bool {
	v, _ := md.ResourceMetrics().At(0).Resource().Attributes().Get("service.name")
	return strings.HasPrefix(v.Str(), job+"-") // scrapetest names the job of target i <job>-<i>
}

// perSource splits a scrape of several targets into one batch per target, as the Prometheus
// receiver sends them.
func perSource(md pmetric.Metrics) []pmetric.Metrics {
	var out []pmetric.Metrics
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		b := pmetric.NewMetrics()
		md.ResourceMetrics().At(i).CopyTo(b.ResourceMetrics().AppendEmpty())
		out = append(out, b)
	}
	return out
}

// A marker carries no value: of an ended series' point only its identity stays (attributes,
// timestamps) and the flag, without exemplars, which would otherwise reach the backend as
// samples of a series that has ended; a histogram marker has a sum, so that its `_sum`
// series ends too.
func TestMarkEndedLeavesBareMarkers(t *testing.T) {
	isLive := func(attrs pcommon.Map) bool {
		v, _ := attrs.Get("replica")
		return v.Str() == "live"
	}
	withTwoPoints := func(m pmetric.Metric) {
		for _, replica := range []string{"live", "gone"} {
			var attrs pcommon.Map
			var ex pmetric.ExemplarSlice
			switch m.Type() {
			case pmetric.MetricTypeSum:
				dp := m.Sum().DataPoints().AppendEmpty()
				dp.SetDoubleValue(3)
				attrs, ex = dp.Attributes(), dp.Exemplars()
			case pmetric.MetricTypeHistogram:
				dp := m.Histogram().DataPoints().AppendEmpty()
				dp.SetCount(4)
				attrs, ex = dp.Attributes(), dp.Exemplars()
			case pmetric.MetricTypeExponentialHistogram:
				dp := m.ExponentialHistogram().DataPoints().AppendEmpty()
				dp.SetCount(4)
				attrs, ex = dp.Attributes(), dp.Exemplars()
			}
			attrs.PutStr("replica", replica)
			ex.AppendEmpty().SetDoubleValue(0.25)
		}
	}
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	ms.AppendEmpty().SetEmptySum()
	ms.AppendEmpty().SetEmptyHistogram()
	ms.AppendEmpty().SetEmptyExponentialHistogram()
	for i := 0; i < ms.Len(); i++ {
		m := ms.At(i)
		withTwoPoints(m)
		require.Equal(t, 1, markEnded(m, isLive), "%s: the live point goes", m.Type())
	}
	sum := ms.At(0).Sum().DataPoints().At(0)
	hist := ms.At(1).Histogram().DataPoints().At(0)
	exp := ms.At(2).ExponentialHistogram().DataPoints().At(0)
	for _, p := range []struct {
		attrs     pcommon.Map
		flags     pmetric.DataPointFlags
		exemplars int
	}{
		{sum.Attributes(), sum.Flags(), sum.Exemplars().Len()},
		{hist.Attributes(), hist.Flags(), hist.Exemplars().Len()},
		{exp.Attributes(), exp.Flags(), exp.Exemplars().Len()},
	} {
		assert.Equal(t, map[string]any{"replica": "gone"}, p.attrs.AsRaw())
		assert.True(t, p.flags.NoRecordedValue())
		assert.Zero(t, p.exemplars)
	}
	assert.True(t, hist.HasSum())
}
