// Package identity keeps a series' identity on its resource: it keeps only the identity
// resource attributes and lifts identity datapoint attributes to the resource, splitting a
// resource where its points disagree, so two replicas' points are never merged. It replaces
// the reference's transform/identity (keep_keys) and groupbyattrs/identity.
package identity // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/identity"

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// DefaultKeys are the identity attributes of the reference pipeline.
var DefaultKeys = []string{"cluster", "namespace", "deployment", "replica", "engine", "role", "node", "service.name", "service.instance.id"}

// Keeper applies identity to batches. It is immutable and safe for concurrent use.
type Keeper struct {
	keys []string
	set  map[string]struct{}
}

// New returns a Keeper for the given keys.
func New(keys []string) *Keeper {
	k := &Keeper{keys: append([]string(nil), keys...), set: make(map[string]struct{}, len(keys))}
	for _, key := range keys {
		k.set[key] = struct{}{}
	}
	return k
}

func (k *Keeper) isKey(s string) bool {
	_, ok := k.set[s]
	return ok
}

// Apply keeps only identity attributes on every resource of md and lifts identity datapoint
// attributes to the resource.
func (k *Keeper) Apply(md pmetric.Metrics) {
	rms := md.ResourceMetrics()
	n := rms.Len()
	for i := 0; i < n; i++ {
		rm := rms.At(i)
		rm.Resource().Attributes().RemoveIf(func(key string, _ pcommon.Value) bool { return !k.isKey(key) })
		k.lift(i, rms)
	}
	// A resource whose points all moved to split-off resources is left empty.
	rms.RemoveIf(func(rm pmetric.ResourceMetrics) bool { return rm.ScopeMetrics().Len() == 0 })
}

// lift moves identity datapoint attributes of rm to a resource. Where every point carries
// the same identity values (the usual case: one target, one replica) they move onto rm's own
// resource in place; otherwise points are moved into new resources, one per distinct set of
// values, appended to rms.
func (k *Keeper) lift(idx int, rms pmetric.ResourceMetricsSlice) {
	rm := rms.At(idx)
	var first pcommon.Map
	found, uniform := false, true
	eachPoint(rm, func(attrs pcommon.Map) {
		if !uniform {
			return
		}
		if !found {
			first, found = attrs, true
			return
		}
		if !k.sameIdentity(first, attrs) {
			uniform = false
		}
	})
	if !found {
		return
	}
	if uniform {
		if !k.hasIdentity(first) {
			return
		}
		res := rm.Resource().Attributes()
		first.Range(func(key string, v pcommon.Value) bool {
			if k.isKey(key) {
				v.CopyTo(res.PutEmpty(key))
			}
			return true
		})
		eachPoint(rm, func(attrs pcommon.Map) {
			attrs.RemoveIf(func(key string, _ pcommon.Value) bool { return k.isKey(key) })
		})
		return
	}
	k.split(idx, rms)
}

// sameIdentity reports whether a and b hold the same identity keys with the same values.
func (k *Keeper) sameIdentity(a, b pcommon.Map) bool {
	for _, key := range k.keys {
		va, oka := a.Get(key)
		vb, okb := b.Get(key)
		if oka != okb || (oka && !va.Equal(vb)) {
			return false
		}
	}
	return true
}

func (k *Keeper) hasIdentity(m pcommon.Map) bool {
	for _, key := range k.keys {
		if _, ok := m.Get(key); ok {
			return true
		}
	}
	return false
}

// signature renders the identity values of attrs as a map key.
func (k *Keeper) signature(attrs pcommon.Map) string {
	var b strings.Builder
	for _, key := range k.keys {
		if v, ok := attrs.Get(key); ok {
			b.WriteString(key)
			b.WriteByte(0)
			b.WriteString(v.AsString())
		}
		b.WriteByte(1)
	}
	return b.String()
}

// group is one new resource and where each of the origin's metrics landed in it.
type group struct {
	rm      pmetric.ResourceMetrics
	metrics map[[2]int]pmetric.Metric // (scope index, metric index) in the origin
}

// split distributes the points of rms[idx] over one new resource per identity signature,
// in order of first appearance. Points without identity attributes stay where they are.
func (k *Keeper) split(idx int, rms pmetric.ResourceMetricsSlice) {
	origin := rms.At(idx)
	bySig := map[string]int{}
	var groups []*group
	groupFor := func(attrs pcommon.Map) *group {
		sig := k.signature(attrs)
		if gi, ok := bySig[sig]; ok {
			return groups[gi]
		}
		g := &group{rm: pmetric.NewResourceMetrics(), metrics: map[[2]int]pmetric.Metric{}}
		origin.Resource().CopyTo(g.rm.Resource())
		g.rm.SetSchemaUrl(origin.SchemaUrl())
		res := g.rm.Resource().Attributes()
		attrs.Range(func(key string, v pcommon.Value) bool {
			if k.isKey(key) {
				v.CopyTo(res.PutEmpty(key))
			}
			return true
		})
		bySig[sig] = len(groups)
		groups = append(groups, g)
		return g
	}
	sms := origin.ScopeMetrics()
	for s := 0; s < sms.Len(); s++ {
		sm := sms.At(s)
		ms := sm.Metrics()
		for mi := 0; mi < ms.Len(); mi++ {
			m := ms.At(mi)
			dest := func(attrs pcommon.Map) (pmetric.Metric, bool) {
				if !k.hasIdentity(attrs) {
					return pmetric.Metric{}, false
				}
				g := groupFor(attrs)
				key := [2]int{s, mi}
				dm, ok := g.metrics[key]
				if !ok {
					dsm := g.rm.ScopeMetrics().AppendEmpty()
					sm.Scope().CopyTo(dsm.Scope())
					dsm.SetSchemaUrl(sm.SchemaUrl())
					dm = dsm.Metrics().AppendEmpty()
					copyMetricHeader(m, dm)
					g.metrics[key] = dm
				}
				return dm, true
			}
			movePoints(m, dest, func(attrs pcommon.Map) {
				attrs.RemoveIf(func(key string, _ pcommon.Value) bool { return k.isKey(key) })
			})
		}
		ms.RemoveIf(func(m pmetric.Metric) bool { return pointCount(m) == 0 })
	}
	sms.RemoveIf(func(sm pmetric.ScopeMetrics) bool { return sm.Metrics().Len() == 0 })
	for _, g := range groups {
		g.rm.MoveTo(rms.AppendEmpty())
	}
}
