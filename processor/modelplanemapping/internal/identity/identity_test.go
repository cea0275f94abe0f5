// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package identity

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

func gaugeBatch(points ...map[string]any) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "eng")
	rm.Resource().Attributes().PutStr("k8s.pod.name", "p")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	for _, name := range []string{"a", "b"} {
		g := ms.AppendEmpty()
		g.SetName(name)
		dps := g.SetEmptyGauge().DataPoints()
		for i, p := range points {
			dp := dps.AppendEmpty()
			_ = dp.Attributes().FromRaw(p)
			dp.SetIntValue(int64(i))
		}
	}
	return md
}

// resources maps each resource's attributes to the attributes and value of its points.
func resources(md pmetric.Metrics) map[string][]string {
	out := map[string][]string{}
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		rm := md.ResourceMetrics().At(i)
		// Attribute order follows the points' order, which FromRaw does not fix: sort.
		var kv []string
		for k, v := range rm.Resource().Attributes().All() {
			kv = append(kv, k+"="+v.AsString()+";")
		}
		sort.Strings(kv)
		key := strings.Join(kv, "")
		for j := 0; j < rm.ScopeMetrics().Len(); j++ {
			ms := rm.ScopeMetrics().At(j).Metrics()
			for m := 0; m < ms.Len(); m++ {
				dps := ms.At(m).Gauge().DataPoints()
				for d := 0; d < dps.Len(); d++ {
					s := ms.At(m).Name()
					for k, v := range dps.At(d).Attributes().All() {
						s += " " + k + "=" + v.AsString()
					}
					out[key] = append(out[key], s)
				}
			}
		}
	}
	return out
}

func TestUniformIdentityLiftsInPlace(t *testing.T) {
	md := gaugeBatch(map[string]any{"replica": "r0", "model": "m"}, map[string]any{"replica": "r0", "model": "n"})
	New(DefaultKeys).Apply(md)
	assert.Equal(t, map[string][]string{
		"replica=r0;service.name=eng;": {"a model=m", "a model=n", "b model=m", "b model=n"},
	}, resources(md))
}

func TestMixedIdentitySplitsWithoutMerging(t *testing.T) {
	md := gaugeBatch(map[string]any{"model": "m"}, map[string]any{"replica": "r0"}, map[string]any{"replica": "r1", "role": "decode"}, map[string]any{"replica": "r0"})
	New(DefaultKeys).Apply(md)
	got := resources(md)
	assert.Equal(t, map[string][]string{
		"service.name=eng;":                        {"a model=m", "b model=m"},
		"replica=r0;service.name=eng;":             {"a", "a", "b", "b"},
		"replica=r1;role=decode;service.name=eng;": {"a", "b"},
	}, got)
	require.Equal(t, 3, md.ResourceMetrics().Len())
	for i := 0; i < 3; i++ {
		assert.Equal(t, 1, md.ResourceMetrics().At(i).ScopeMetrics().Len(), "one scope per resource")
	}
}

func TestNoPointsAndNoIdentity(t *testing.T) {
	md := gaugeBatch(map[string]any{"model": "m"})
	New(DefaultKeys).Apply(md)
	assert.Equal(t, map[string][]string{"service.name=eng;": {"a model=m", "b model=m"}}, resources(md))
}

// A resource with three scopes of different sizes, each with points of two identities: every
// moved point lands in its group's copy of its own scope and metric, in a scope larger and in
// one smaller than the one where its group was made.
func TestSplitAcrossScopes(t *testing.T) {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "eng")
	for s, names := range [][]string{{"a"}, {"b", "c", "d"}, {"e"}} {
		sm := rm.ScopeMetrics().AppendEmpty()
		sm.Scope().SetName("scope" + string(rune('0'+s)))
		for _, name := range names {
			g := sm.Metrics().AppendEmpty()
			g.SetName(name)
			dps := g.SetEmptyGauge().DataPoints()
			for _, replica := range []string{"r0", "r1", "r0"} {
				_ = dps.AppendEmpty().Attributes().FromRaw(map[string]any{"replica": replica, "name": name})
			}
		}
	}
	New(DefaultKeys).Apply(md)
	require.Equal(t, 2, md.ResourceMetrics().Len())
	for i := 0; i < 2; i++ {
		rm := md.ResourceMetrics().At(i)
		require.Equal(t, 3, rm.ScopeMetrics().Len(), "each identity keeps every scope")
		var got []string
		for s := 0; s < 3; s++ {
			sm := rm.ScopeMetrics().At(s)
			for m := 0; m < sm.Metrics().Len(); m++ {
				metric := sm.Metrics().At(m)
				dps := metric.Gauge().DataPoints()
				for d := 0; d < dps.Len(); d++ {
					n, _ := dps.At(d).Attributes().Get("name")
					require.Equal(t, metric.Name(), n.Str(), "a point stays with its own metric")
					got = append(got, sm.Scope().Name()+"/"+metric.Name())
				}
			}
		}
		replica, _ := rm.Resource().Attributes().Get("replica")
		want := []string{"scope0/a", "scope1/b", "scope1/c", "scope1/d", "scope2/e"}
		if replica.Str() == "r0" {
			want = []string{"scope0/a", "scope0/a", "scope1/b", "scope1/b", "scope1/c", "scope1/c", "scope1/d", "scope1/d", "scope2/e", "scope2/e"}
		}
		assert.Equal(t, want, got, "resource replica=%s", replica.Str())
	}
}
