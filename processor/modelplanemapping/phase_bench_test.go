// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/identity"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/rules"
)

// BenchmarkPhases splits our processing of the busy-node batch into its two parts.
func BenchmarkPhases(b *testing.B) {
	in := busyNode(b)
	set := rules.Compile(anchorMappings(b))
	keeper := identity.New(identity.DefaultKeys)
	run := func(b *testing.B, f func(md pmetric.Metrics)) { runChunked(b, in, f) }
	b.Run("phase=mapping", func(b *testing.B) {
		run(b, func(md pmetric.Metrics) { set.Apply(md, rules.Options{DropUnmapped: true}, &rules.Stats{}) })
	})
	b.Run("phase=mapping+identity", func(b *testing.B) {
		run(b, func(md pmetric.Metrics) {
			set.Apply(md, rules.Options{DropUnmapped: true}, &rules.Stats{})
			keeper.Apply(md)
		})
	})
	// The same batch where no scrape mixes identities (no GPU held by a pod of another
	// namespace than its neighbour's), so identity lifts but never splits.
	unsplit := pmetric.NewMetrics()
	in.CopyTo(unsplit)
	withoutPods(unsplit)
	b.Run("phase=mapping+identity,split=none", func(b *testing.B) {
		runChunked(b, unsplit, func(md pmetric.Metrics) {
			set.Apply(md, rules.Options{DropUnmapped: true}, &rules.Stats{})
			keeper.Apply(md)
		})
	})
}

// withoutPods removes the pod labels dcgm-exporter puts on GPUs held by pods.
func withoutPods(md pmetric.Metrics) {
	points.EachMetric(md, func(_ pcommon.Map, m pmetric.Metric) {
		if !strings.HasPrefix(m.Name(), "DCGM_") {
			return
		}
		points.EachAttributes(m, func(attrs pcommon.Map) bool {
			attrs.RemoveIf(func(key string, _ pcommon.Value) bool {
				return key == "namespace" || key == "pod" || key == "container"
			})
			return true
		})
	})
}
