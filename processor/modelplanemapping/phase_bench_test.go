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
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				if !strings.HasPrefix(ms.At(k).Name(), "DCGM_") {
					continue
				}
				points.EachAttributes(ms.At(k), func(attrs pcommon.Map) bool {
					attrs.RemoveIf(func(key string, _ pcommon.Value) bool {
						return key == "namespace" || key == "pod" || key == "container"
					})
					return true
				})
			}
		}
	}
}
