// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

var (
	fleetOnce  sync.Once
	fleetBatch pmetric.Metrics
	fleetErr   error
)

// busyNode is the batch a DaemonSet sees per scrape round: 8 engine replicas (vLLM and
// SGLang), the gateway, the picker and 8 GPUs, as the Prometheus receiver produces them.
func busyNode(b testing.TB) pmetric.Metrics {
	fleetOnce.Do(func() {
		fleetBatch, fleetErr = scrapetest.Scrape(context.Background(), scrapetest.Fleet(8, 8))
		if fleetErr == nil {
			setCluster(fleetBatch, "prod")
		}
	})
	require.NoError(b, fleetErr)
	return fleetBatch
}

// padding is n extra entries that match nothing in the batch, for the growth benchmarks.
func padding(n int) []metricmapping.MetricMapping {
	var out []metricmapping.MetricMapping
	for len(out)*100 < n {
		m := metricmapping.MetricMapping{Name: fmt.Sprintf("pad-%d", len(out))}
		for i := 0; i < 100 && len(out)*100+i < n; i++ {
			m.Metrics = append(m.Metrics, metricmapping.Entry{From: fmt.Sprintf("other_engine_metric_%d_%d", len(out), i), To: fmt.Sprintf("modelplane_other_%d", i)})
		}
		out = append(out, m)
	}
	return out
}

func oursWith(b *testing.B, extra []metricmapping.MetricMapping) processor.Metrics {
	cfg := ourChainConfig(b)
	for _, m := range extra {
		cfg.Mappings = append(cfg.Mappings, InlineMapping{Name: m.Name, Metrics: m.Metrics})
	}
	p, _ := newTestProcessor(b, cfg)
	return p
}

// TestWriteReferenceBenchInputs writes the busy-node batch and the reference chain's configs
// for the benchmarks' entry counts to $REFERENCE_BENCH_INPUTS, where the reference's side of
// the benchmarks (bench/reference/pipeline) reads them; scripts/bench.sh runs both.
func TestWriteReferenceBenchInputs(t *testing.T) {
	dir := os.Getenv("REFERENCE_BENCH_INPUTS")
	if dir == "" {
		t.Skip("REFERENCE_BENCH_INPUTS is unset: scripts/bench.sh sets it")
	}
	raw, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(busyNode(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "busynode.pb"), raw, 0o644))
	for _, n := range []int{29, 30, 300, 3000} {
		procs := anchorPipeline(t, "prod")
		procs["transform/modelplane"] = ottlFromMappings(append(anchorMappings(t), padding(n-29)...))
		raw, err := json.Marshal(procs)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("entries-%d.json", n)), raw, 0o644))
	}
}

// runBatches feeds a fresh copy of the batch per iteration to p.
func runBatches(b *testing.B, p processor.Metrics, in pmetric.Metrics) {
	ctx := context.Background()
	// Warm up: the first batch sizes internal buffers and caches.
	warm := pmetric.NewMetrics()
	in.CopyTo(warm)
	require.NoError(b, p.ConsumeMetrics(ctx, warm))
	runChunked(b, in, func(md pmetric.Metrics) {
		if err := p.ConsumeMetrics(ctx, md); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(float64(in.DataPointCount()), "points/batch")
}

// runChunked times f over b.N fresh copies of in. Copies are made, and their garbage
// collected, with the timer stopped, in chunks, so the timed part is f alone.
func runChunked(b *testing.B, in pmetric.Metrics, f func(pmetric.Metrics)) {
	const chunk = 128
	batch := make([]pmetric.Metrics, chunk)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		n := min(chunk, b.N-done)
		for i := 0; i < n; i++ {
			batch[i] = pmetric.NewMetrics()
			in.CopyTo(batch[i])
		}
		runtime.GC()
		b.StartTimer()
		for i := 0; i < n; i++ {
			f(batch[i])
		}
		done += n
	}
	b.StopTimer()
}

// BenchmarkBusyNode: ours on one DaemonSet scrape round; bench/reference/pipeline has the
// reference chain's side under the same name.
func BenchmarkBusyNode(b *testing.B) {
	in := busyNode(b)
	b.Run("impl=modelplane_mapping", func(b *testing.B) { runBatches(b, oursWith(b, nil), in) })
}

// BenchmarkGrowth: the same batch with 30, 300 and 3000 mapping entries (the reference's side
// as for BenchmarkBusyNode).
func BenchmarkGrowth(b *testing.B) {
	in := busyNode(b)
	for _, n := range []int{30, 300, 3000} {
		extra := padding(n - 29) // the 29 anchor entries are always there
		b.Run(fmt.Sprintf("entries=%d/impl=modelplane_mapping", n), func(b *testing.B) { runBatches(b, oursWith(b, extra), in) })
	}
}

// BenchmarkPdataPooling: the busy-node batch through ours with pdata's alpha
// pdata.useProtoPooling gate on, to show what it would buy. Not part of
// `make bench`: it flips a process-wide gate.
func BenchmarkPdataPooling(b *testing.B) {
	in := busyNode(b)
	require.NoError(b, featuregate.GlobalRegistry().Set("pdata.useProtoPooling", true))
	b.Cleanup(func() { _ = featuregate.GlobalRegistry().Set("pdata.useProtoPooling", false) })
	runBatches(b, oursWith(b, nil), in)
}
