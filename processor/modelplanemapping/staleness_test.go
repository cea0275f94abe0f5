// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/translator/prometheusremotewrite"
	"github.com/prometheus/prometheus/model/value"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

// When engines and dcgm-exporters stop, the Prometheus receiver marks every series they had
// stale, and the remote-write exporter writes each marker as Prometheus's stale NaN, so the
// backend ends the series at once instead of answering with the last value for five
// minutes. Through our processor the markers of every mapped series reach the exporter:
// renamed, converted, split by identity, extracted. The one difference to the reference is
// where it leaves a series running: the receiver builds a histogram's marker without a sum,
// and the exporter writes `_sum` only for a point that has one, so behind the reference
// `_sum` outlives `_bucket` and `_count` (a latency panel of `_sum / _count` reads the stopped
// engine for five minutes). Ours ends `_sum` with them.
func TestStaleMarkersEndEverySeries(t *testing.T) {
	scrapetest.InBothFormats(t, scrapetest.Fleet(2, 2), func(t *testing.T, fleet []scrapetest.Target) {
		in, err := scrapetest.StaleMarkers(context.Background(), fleet)
		require.NoError(t, err)
		ref := remoteWriteSeries(t, runReference(t, anchorPipeline(t, "prod"), in))
		setCluster(in, "prod")
		ours := remoteWriteSeries(t, runOnce(t, ourChainConfig(t), in))

		require.NotEmpty(t, ours)
		for s, v := range ours {
			assert.True(t, value.IsStaleNaN(v), "%s is written as %v, not as a stale marker", s, v)
		}
		for s := range ref {
			assert.True(t, has(ours, s), "the reference ends %s, ours does not", s)
		}
		var sums []string
		for s := range ours {
			if _, ok := ref[s]; ok {
				continue
			}
			name, _, _ := strings.Cut(s, "{")
			require.True(t, strings.HasSuffix(name, "_sum"), "only a histogram's _sum may be ours alone: %s", s)
			count := strings.Replace(s, "_sum{", "_count{", 1)
			assert.True(t, has(ref, count), "the reference does not end %s either", count)
			sums = append(sums, s)
		}
		histograms := 0
		for s := range ours {
			if name, _, _ := strings.Cut(s, "{"); strings.HasSuffix(name, "_count") {
				histograms++
				sum := strings.Replace(s, "_count{", "_sum{", 1)
				assert.True(t, has(ours, sum), "%s runs on", sum)
			}
		}
		assert.Len(t, sums, histograms, "the reference leaves every histogram's _sum running")
		t.Logf("%d series end in both; %d histogram _sum series end only behind ours", len(ref), len(sums))
	})
}

func has(series map[string]float64, s string) bool {
	_, ok := series[s]
	return ok
}

// remoteWriteSeries is what the remote-write exporter writes for md: one sample per series,
// keyed by the series' name and labels.
func remoteWriteSeries(t *testing.T, md pmetric.Metrics) map[string]float64 {
	t.Helper()
	tss, err := prometheusremotewrite.FromMetrics(md, prometheusremotewrite.Settings{DisableTargetInfo: true})
	require.NoError(t, err)
	out := map[string]float64{}
	for _, ts := range tss {
		var name string
		var labels []string
		for _, l := range ts.Labels {
			if l.Name == "__name__" {
				name = l.Value
				continue
			}
			labels = append(labels, l.Name+"="+l.Value)
		}
		sort.Strings(labels)
		key := name + "{" + strings.Join(labels, ",") + "}"
		require.Len(t, ts.Samples, 1, key)
		_, dup := out[key]
		require.False(t, dup, "two series %s", key)
		out[key] = ts.Samples[0].Value
	}
	return out
}
