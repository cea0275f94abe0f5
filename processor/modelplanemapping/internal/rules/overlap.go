// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"fmt"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// Overlaps describes, one line each, the entries an earlier entry overrides: a rename that
// never applies because an earlier one renamed its source first, and a source converted by
// two entries (scaled twice). Valid, and run as the reference runs them, but never meant.
func Overlaps(mappings []metricmapping.MetricMapping) []string {
	type located struct {
		m    *metricmapping.MetricMapping
		i    int
		name string // sourceName
	}
	var all []located
	for mi := range mappings {
		for i, e := range mappings[mi].Metrics {
			all = append(all, located{&mappings[mi], i, sourceName(e)})
		}
	}
	entry := func(l located) metricmapping.Entry { return l.m.Metrics[l.i] }
	where := func(l located) string {
		return fmt.Sprintf("%s: MetricMapping %q metrics[%d]", l.m.Source, l.m.Name, l.i)
	}
	what := func(l located) string {
		if e := entry(l); e.Part != "" {
			return fmt.Sprintf("%q (part %s)", e.From, e.Part)
		}
		return fmt.Sprintf("%q", entry(l).From)
	}
	hint := func(l located) string {
		if strings.HasPrefix(l.m.Source, metricmapping.BuiltinSourcePrefix) {
			return fmt.Sprintf("; to replace the built-in, leave %q out of `builtin`", l.m.Name)
		}
		return ""
	}

	// Which renames ever apply, following every source through the rename phase as Compile
	// does.
	statements := make([]rename, len(all))
	for j, l := range all {
		statements[j] = rename{l.name, entry(l).To}
	}
	renames := make([]bool, len(all))
	started := map[string]bool{}
	for _, s := range all {
		if !started[s.name] {
			started[s.name] = true
			renamed(s.name, statements, renames)
		}
	}

	var notes []string
	converted := map[string]located{}
	for j, l := range all {
		e := entry(l)
		if !renames[j] && e.To != l.name {
			// The earlier entry that renamed the source away: the first of its name that does
			// not keep the name.
			for _, first := range all[:j] {
				if to := entry(first).To; first.name == l.name && to != l.name {
					if to != e.To {
						notes = append(notes, fmt.Sprintf("%s: %s never becomes %q: %s renames it to %q first (mappings run built-ins, files, cluster objects, inline, each in order)%s",
							where(l), what(l), e.To, where(first), to, hint(first)))
					}
					break
				}
			}
		}
		if e.FromUnit == "" {
			continue
		}
		if first, ok := converted[l.name]; ok {
			notes = append(notes, fmt.Sprintf("%s: %s is converted from %s here and from %s by %s: its values are scaled twice%s",
				where(l), what(l), e.FromUnit, entry(first).FromUnit, where(first), hint(first)))
			continue
		}
		converted[l.name] = l
	}
	return notes
}
