// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"fmt"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// NameNotes describes, one line each, the entries whose names do not say what their series
// will be: names and fromUnit that disagree about the unit (values off by 1000 or more), and
// a target the Prometheus exporters serve under another name (a unit or _total added).
func NameNotes(mappings []metricmapping.MetricMapping) []string {
	var notes []string
	for mi := range mappings {
		m := &mappings[mi]
		for i, e := range m.Metrics {
			for _, note := range []string{unitNote(e), servedNameNote(e)} {
				if note != "" {
					notes = append(notes, fmt.Sprintf("%s: MetricMapping %q metrics[%d]: %s", m.Source, m.Name, i, note))
				}
			}
		}
	}
	return notes
}

func unitNote(e metricmapping.Entry) string {
	if e.Part == metricmapping.PartCount {
		return ""
	}
	src, srcBase, toBase := units.OfSourceName(e.From), units.OfName(e.From), units.OfName(e.To)
	from, ok := units.Parse(e.FromUnit)
	if !ok {
		from = units.None
	}
	switch {
	case from == units.None && src != units.None && toBase == src.Target():
		return fmt.Sprintf("%q is in %s by its name and %q in %s: without fromUnit: %s its values stay in %s",
			e.From, word(src), e.To, baseWord(toBase), src, word(src))
	case from != units.None && src != units.None && from != src:
		return fmt.Sprintf("%q is in %s by its name, but fromUnit is %s", e.From, word(src), from)
	case from != units.None && srcBase == from.Target():
		return fmt.Sprintf("%q is in %s by its name already, but fromUnit: %s scales its values as if they were in %s",
			e.From, baseWord(srcBase), from, word(from))
	case from != units.None && toBase != "" && toBase != from.Target():
		return fmt.Sprintf("fromUnit: %s converts to %s, but %q is in %s by its name", from, baseWord(from.Target()), e.To, baseWord(toBase))
	case from == units.None && srcBase != "" && toBase != "" && srcBase != toBase:
		return fmt.Sprintf("%q is in %s by its name and %q in %s", e.From, baseWord(srcBase), e.To, baseWord(toBase))
	}
	return ""
}

// servedNameNote says under which name the Prometheus exporters serve a target that lacks the
// suffix of the unit its conversion sets, or a counter's _total: a part is a counter, and so
// is a source named with _total, as Prometheus names counters.
func servedNameNote(e metricmapping.Entry) string {
	counter := e.Part != "" || strings.HasSuffix(e.From, "_total") || strings.HasSuffix(e.To, "_total")
	base := strings.TrimSuffix(e.To, "_total")
	served, why, gauge := base, "", ""
	if u, ok := units.Parse(e.FromUnit); ok && e.Part != metricmapping.PartCount && units.OfName(e.To) == "" {
		switch suffix := unitSuffix(u.Target()); {
		case suffix == "ratio" && counter:
			// The exporters add _ratio to gauges only.
		case suffix == "ratio":
			// A source's type is not in its name: said for a gauge, as a percentage most often is.
			served, why, gauge = base+"_ratio", fmt.Sprintf("fromUnit: %s gives a ratio (unit 1), which they add to a gauge's name", u), " if it is a gauge"
		case suffix != "":
			served, why = base+"_"+suffix, fmt.Sprintf("fromUnit: %s gives %s, which they add to the name", u, baseWord(u.Target()))
		}
	}
	if counter {
		served += "_total"
		if !strings.HasSuffix(e.To, "_total") {
			kind := fmt.Sprintf("%q is a counter by its name", e.From)
			if e.Part != "" {
				kind = "part " + e.Part + " is a counter"
			}
			why = strings.TrimPrefix(why+"; "+kind+", to which they add _total", "; ")
		}
	}
	if served == e.To {
		return ""
	}
	return fmt.Sprintf("the Prometheus exporters serve %q as %q%s (%s): name it %q to find it under the same name everywhere",
		e.To, served, gauge, why, served)
}

// word is a source unit as a name says it: "milliseconds".
func word(u units.Unit) string { return strings.ToLower(u.String()) }

// baseWord is a UCUM base unit as a name says it: "seconds" for s, "a ratio" for 1.
func baseWord(ucum string) string {
	switch w := unitSuffix(ucum); w {
	case "":
		return ucum
	case "ratio":
		return "a ratio"
	default:
		return w
	}
}

// unitSuffix is the word the Prometheus exporters add to a name for a UCUM unit: "seconds".
func unitSuffix(ucum string) string { return strings.TrimPrefix(units.NameSuffix(ucum), "_") }
