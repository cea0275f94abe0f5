// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package identity keeps a series' identity on its resource: it keeps only the identity
// resource attributes and lifts identity datapoint attributes to the resource, splitting a
// resource where its points disagree, so two replicas' points are never merged. It replaces
// the reference's transform/identity (keep_keys) and groupbyattrs/identity.
package identity // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/identity"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
)

// DefaultKeys are the identity attributes of the reference pipeline.
var DefaultKeys = []string{"cluster", "namespace", "deployment", "replica", "engine", "role", "node", "service.name", "service.instance.id"}

const maxKeyLen = 64

// Keeper applies identity to batches. It is immutable and safe for concurrent use.
type Keeper struct {
	// byLen holds the keys by length: a point's attribute is tested against the few keys of
	// its own length, which is far cheaper per attribute than hashing it.
	byLen   [maxKeyLen][]string
	long    map[string]bool // keys of maxKeyLen bytes or more
	numKeys int
}

// New returns a Keeper for the given keys.
func New(keys []string) *Keeper {
	k := &Keeper{long: map[string]bool{}}
	seen := map[string]bool{}
	for _, key := range keys {
		if seen[key] {
			continue
		}
		seen[key] = true
		k.numKeys++
		if len(key) < maxKeyLen {
			k.byLen[len(key)] = append(k.byLen[len(key)], key)
		} else {
			k.long[key] = true
		}
	}
	return k
}

func (k *Keeper) isKey(s string) bool {
	if len(s) >= maxKeyLen {
		return k.long[s]
	}
	for _, c := range k.byLen[len(s)] {
		if c == s {
			return true
		}
	}
	return false
}

// tuple is the identity attributes of one point, in the point's attribute order.
type tuple []kv

type kv struct {
	key string
	val pcommon.Value
}

// read fills t with the identity attributes of attrs.
func (k *Keeper) read(attrs pcommon.Map, t tuple) tuple {
	t = t[:0]
	for key, v := range attrs.All() {
		if k.isKey(key) {
			t = append(t, kv{key, v})
		}
	}
	return t
}

// matches reports whether attrs holds exactly the identity attributes of t.
func (k *Keeper) matches(attrs pcommon.Map, t tuple) bool {
	n := 0
	for key, v := range attrs.All() {
		if !k.isKey(key) {
			continue
		}
		n++
		found := false
		for i := range t {
			if t[i].key == key {
				found = sameValue(t[i].val, v)
				break
			}
		}
		if !found {
			return false
		}
	}
	return n == len(t)
}

func sameValue(a, b pcommon.Value) bool {
	if a.Type() == pcommon.ValueTypeStr && b.Type() == pcommon.ValueTypeStr {
		return a.Str() == b.Str()
	}
	return a.Equal(b)
}

// Apply keeps only identity attributes on every resource of md and lifts identity datapoint
// attributes to the resource.
func (k *Keeper) Apply(md pmetric.Metrics) {
	rms := md.ResourceMetrics()
	n := rms.Len()
	var buf [16]kv
	for i := 0; i < n; i++ {
		rms.At(i).Resource().Attributes().RemoveIf(func(key string, _ pcommon.Value) bool { return !k.isKey(key) })
		k.lift(i, rms, buf[:0])
	}
	// A resource whose points all moved to split-off resources is left empty.
	rms.RemoveIf(func(rm pmetric.ResourceMetrics) bool { return rm.ScopeMetrics().Len() == 0 })
}

// lift moves identity datapoint attributes of rms[idx] to a resource: points sharing the
// first point's identity stay there, the others move to new resources appended to rms, one
// per identity. In the usual case (one target, one replica) nothing moves.
func (k *Keeper) lift(idx int, rms pmetric.ResourceMetricsSlice, buf tuple) {
	rm := rms.At(idx)
	var first tuple
	found, uniform := false, true
	eachPoint(rm, func(attrs pcommon.Map) bool {
		if !found {
			first, found = k.read(attrs, buf), true
			return true
		}
		uniform = k.matches(attrs, first)
		return uniform
	})
	if !found {
		return
	}
	if !uniform {
		k.split(idx, rms, first)
		rm = rms.At(idx)
	}
	if len(first) == 0 {
		return
	}
	// The first point's values move (no copy, so no allocation): every point's identity
	// attributes are stripped next anyway.
	res := rm.Resource().Attributes()
	for _, e := range first {
		e.val.MoveTo(res.PutEmpty(e.key))
	}
	eachPoint(rm, func(attrs pcommon.Map) bool {
		attrs.RemoveIf(func(key string, _ pcommon.Value) bool { return k.isKey(key) })
		return true
	})
}

// group is one new resource and where the origin's scopes and metrics landed in it, by
// their index in the origin (a zero value: not yet). Slices sized once, not maps grown
// point by point: a split happens on every scrape of a shared exporter.
type group struct {
	identity tuple
	rm       pmetric.ResourceMetrics
	scopes   []pmetric.ScopeMetrics
	metrics  []pmetric.Metric // of the scope being split
}

// split moves every point of rms[idx] whose identity differs from keep into a new resource
// per identity, in order of first appearance, with the identity lifted and stripped.
func (k *Keeper) split(idx int, rms pmetric.ResourceMetricsSlice, keep tuple) {
	origin := rms.At(idx)
	var few [4]*group // a shared exporter's page: a few pods, usually
	groups := few[:0]
	groupFor := func(attrs pcommon.Map) *group {
		for _, g := range groups {
			if k.matches(attrs, g.identity) {
				return g
			}
		}
		// The new resource goes straight to the end of rms, after the resources Apply walks,
		// in order of first appearance.
		g := &group{rm: rms.AppendEmpty(), scopes: make([]pmetric.ScopeMetrics, origin.ScopeMetrics().Len())}
		g.rm.ScopeMetrics().EnsureCapacity(len(g.scopes))
		ids := k.read(attrs, nil)
		// Sized once for the origin's attributes and the lifted ones: CopyTo keeps the
		// capacity, so the Puts below do not grow it.
		res := g.rm.Resource().Attributes()
		res.EnsureCapacity(origin.Resource().Attributes().Len() + len(ids))
		origin.Resource().CopyTo(g.rm.Resource())
		g.rm.SetSchemaUrl(origin.SchemaUrl())
		// The point's identity values move to the group's resource (it is stripped once it
		// moves), and the group's identity refers to them there.
		for _, e := range ids {
			e.val.MoveTo(res.PutEmpty(e.key))
		}
		for i := range ids { // after every Put: a Put can move the map's entries
			ids[i].val, _ = res.Get(ids[i].key)
		}
		g.identity = ids
		groups = append(groups, g)
		return g
	}
	strip := func(attrs pcommon.Map) {
		attrs.RemoveIf(func(key string, _ pcommon.Value) bool { return k.isKey(key) })
	}
	sms := origin.ScopeMetrics()
	for s := 0; s < sms.Len(); s++ {
		sm := sms.At(s)
		ms := sm.Metrics()
		for _, g := range groups { // a new scope: no metric of it has landed yet
			clear(g.metrics)
		}
		for mi := 0; mi < ms.Len(); mi++ {
			m := ms.At(mi)
			dest := func(attrs pcommon.Map) (pmetric.Metric, bool) {
				if k.matches(attrs, keep) {
					return pmetric.Metric{}, false
				}
				g := groupFor(attrs)
				if g.scopes[s] == (pmetric.ScopeMetrics{}) {
					dsm := g.rm.ScopeMetrics().AppendEmpty()
					sm.Scope().CopyTo(dsm.Scope())
					dsm.SetSchemaUrl(sm.SchemaUrl())
					dsm.Metrics().EnsureCapacity(ms.Len())
					g.scopes[s] = dsm
				}
				if len(g.metrics) < ms.Len() { // sized for the largest scope so far
					g.metrics = make([]pmetric.Metric, ms.Len())
				}
				dm := g.metrics[mi]
				if dm == (pmetric.Metric{}) {
					dm = g.scopes[s].Metrics().AppendEmpty()
					copyMetricHeader(m, dm)
					g.metrics[mi] = dm
				}
				return dm, true
			}
			movePoints(m, dest, strip)
		}
		ms.RemoveIf(func(m pmetric.Metric) bool { return points.Count(m) == 0 })
	}
	sms.RemoveIf(func(sm pmetric.ScopeMetrics) bool { return sm.Metrics().Len() == 0 })
}
