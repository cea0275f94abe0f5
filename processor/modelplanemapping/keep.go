// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"regexp"
	"strings"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

// sourceKeeper copies the series of the metrics keep_sources names before the mappings
// change them, so that they go on under their own names beside the mapped ones.
type sourceKeeper struct {
	exact    map[string]bool
	prefixes []string
	other    *regexp.Regexp // patterns with a * elsewhere than at the end
}

// newSourceKeeper compiles keep_sources; nil when there are none.
func newSourceKeeper(patterns []string) *sourceKeeper {
	if len(patterns) == 0 {
		return nil
	}
	k := &sourceKeeper{exact: map[string]bool{}}
	var others []string
	for _, p := range patterns {
		switch body, prefix := strings.CutSuffix(p, "*"); {
		case !strings.Contains(p, "*"):
			k.exact[p] = true
		case prefix && !strings.Contains(body, "*"):
			k.prefixes = append(k.prefixes, body)
		default:
			others = append(others, SourcePattern(p))
		}
	}
	if len(others) > 0 {
		k.other = regexp.MustCompile("^(?:" + strings.Join(others, "|") + ")$")
	}
	return k
}

// SourcePattern is the regular expression, unanchored, of a keep_sources name, * matching any
// run of characters.
func SourcePattern(glob string) string {
	parts := strings.Split(glob, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, ".*")
}

func (k *sourceKeeper) keeps(name string) bool {
	if k.exact[name] {
		return true
	}
	for _, p := range k.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return k.other != nil && k.other.MatchString(name)
}

// copyKept returns a copy of the kept metrics of md, in copies of their resources and
// scopes, and whether there were any.
func (k *sourceKeeper) copyKept(md pmetric.Metrics) (pmetric.Metrics, bool) {
	var out pmetric.Metrics
	found := false
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		rm := rms.At(i)
		var outRM pmetric.ResourceMetrics
		rmMade := false
		sms := rm.ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			sm := sms.At(j)
			var outSM pmetric.ScopeMetrics
			smMade := false
			ms := sm.Metrics()
			for m := 0; m < ms.Len(); m++ {
				if !k.keeps(ms.At(m).Name()) {
					continue
				}
				if !found {
					out, found = pmetric.NewMetrics(), true
				}
				if !rmMade {
					outRM, rmMade = out.ResourceMetrics().AppendEmpty(), true
					rm.Resource().CopyTo(outRM.Resource())
					outRM.SetSchemaUrl(rm.SchemaUrl())
				}
				if !smMade {
					outSM, smMade = outRM.ScopeMetrics().AppendEmpty(), true
					sm.Scope().CopyTo(outSM.Scope())
					outSM.SetSchemaUrl(sm.SchemaUrl())
				}
				ms.At(m).CopyTo(outSM.Metrics().AppendEmpty())
			}
		}
	}
	return out, found
}
