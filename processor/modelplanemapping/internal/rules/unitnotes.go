package rules

import (
	"fmt"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/internal/metricmapping"
	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

// UnitNotes describes, one line each, the entries of mappings whose names and fromUnit
// disagree about the unit: a source named in milliseconds (sglang:kv_transfer_latency_ms)
// renamed into seconds without fromUnit, so its values keep milliseconds under a name that
// says seconds; a fromUnit other than the one the source's name says; a fromUnit on a source
// whose name says it is in the base unit already, which scales it anyway; and a target whose
// name says another unit than the conversion gives. Each is valid, and runs as the reference
// runs it, but shows in the data only as values off by a factor of a thousand or more. Names
// say units by their Prometheus suffix (units.OfName, units.OfSourceName); a name without one
// says nothing, and part Count, which counts observations, has no unit to disagree about.
func UnitNotes(mappings []metricmapping.MetricMapping) []string {
	var notes []string
	for mi := range mappings {
		m := &mappings[mi]
		for i, e := range m.Metrics {
			if e.Part == metricmapping.PartCount {
				continue
			}
			if note := unitNote(e); note != "" {
				notes = append(notes, fmt.Sprintf("%s: MetricMapping %q metrics[%d]: %s", m.Source, m.Name, i, note))
			}
		}
	}
	return notes
}

func unitNote(e metricmapping.Entry) string {
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

// word is a source unit as a name says it: "milliseconds".
func word(u units.Unit) string { return strings.ToLower(u.String()) }

// baseWord is a UCUM base unit as a name says it: "seconds" for s.
func baseWord(ucum string) string {
	switch ucum {
	case "s":
		return "seconds"
	case "By":
		return "bytes"
	case "J":
		return "joules"
	case "W":
		return "watts"
	case "1":
		return "a ratio"
	case "Cel":
		return "degrees Celsius"
	case "Hz":
		return "hertz"
	}
	return ucum
}
