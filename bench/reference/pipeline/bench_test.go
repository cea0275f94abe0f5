// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The reference's side of otelcol-modelplane's processor benchmarks (scripts/bench.sh): the
// same batch and the same rendered configs, which the modelplanemapping package writes to
// $REFERENCE_BENCH_INPUTS, under the same benchmark names, so benchstat sets them side by side.

func load(b *testing.B, name string) (map[string]any, pmetric.Metrics) {
	dir := os.Getenv("REFERENCE_BENCH_INPUTS")
	if dir == "" {
		b.Skip("REFERENCE_BENCH_INPUTS is unset: scripts/bench.sh writes the inputs and sets it")
	}
	rawCfg, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		b.Fatal(err)
	}
	var procs map[string]any
	if err := json.Unmarshal(rawCfg, &procs); err != nil {
		b.Fatal(err)
	}
	rawMD, err := os.ReadFile(filepath.Join(dir, "busynode.pb"))
	if err != nil {
		b.Fatal(err)
	}
	md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(rawMD)
	if err != nil {
		b.Fatal(err)
	}
	return procs, md
}

func runBatches(b *testing.B, name string) {
	procs, in := load(b, name)
	c, err := New(procs, consumertest.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Shutdown() })
	ctx := context.Background()
	warm := pmetric.NewMetrics()
	in.CopyTo(warm)
	if err := c.ConsumeMetrics(ctx, warm); err != nil {
		b.Fatal(err)
	}
	// Copies are made, and their garbage collected, with the timer stopped, as on ours' side.
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
			if err := c.ConsumeMetrics(ctx, batch[i]); err != nil {
				b.Fatal(err)
			}
		}
		done += n
	}
	b.StopTimer()
	b.ReportMetric(float64(in.DataPointCount()), "points/batch")
}

func BenchmarkBusyNode(b *testing.B) {
	b.Run("impl=reference", func(b *testing.B) { runBatches(b, "entries-29") })
}

func BenchmarkGrowth(b *testing.B) {
	for _, n := range []string{"30", "300", "3000"} {
		b.Run("entries="+n+"/impl=reference", func(b *testing.B) { runBatches(b, "entries-"+n) })
	}
}
