package modelplanemapping

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

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
}
