// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package rules compiles MetricMappings into per-source-name plans and applies them to
// pdata. Compilation resolves everything the reference pipeline decides per statement and
// per metric (which statements match, chained renames, unit factors) once, so the per-metric
// cost is one map lookup and the per-datapoint path allocates nothing.
package rules // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/rules"

import (
	"sync"
	"sync/atomic"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// partSep joins a histogram name and the part taken from it into the internal name the
// extracted metric carries between phases. The reference names it "<name>_count", which can
// collide with a real metric; NUL cannot appear in a metric name, so ours cannot.
const partSep = "\x00"

type part uint8

const (
	partCount part = iota + 1
	partSum
)

type extraction struct {
	part part
	name string // internal name of the extracted metric, planned like any other
}

type labelOp struct {
	name   string
	value  string // fixed value when from == ""
	from   string
	values map[string]string
}

// plan is everything that happens to a metric that enters with a given name.
type plan struct {
	extract []extraction
	convert []units.Unit
	// desc remembers the last description rewrite: a metric's description is the same in
	// every scrape, so rewriting it once is enough.
	desc   atomic.Pointer[descRewrite]
	labels []labelOp
	to     string // final name after every rename, in order
	// unit is the UCUM unit the final name declares by its suffix ("" when none). It is set
	// where no conversion sets one, so a renamed metric never keeps the source's (often
	// empty) unit under a name that says seconds, bytes or watts.
	unit string
	// help is the target's canonical description from the built-in table ("" when
	// it has none): one HELP text per modelplane_* name, whichever source fed it.
	help string
	// fallback is set on the sources of a mapping that stands in for another
	// (FallbackFor): they are mapped only in a batch without the other's sources.
	fallback bool
	// preferred is set on the sources of a mapping another stands in for.
	preferred bool
}

// canonical are the built-in descriptions of modelplane_* targets. A broken table is a bug
// that the builtin package's tests catch; here it only means no canonical descriptions.
var canonical = sync.OnceValue(func() map[string]string {
	d, _ := metricmapping.BuiltinDescriptions()
	return d
})

// Set is a compiled, immutable list of mappings. It is safe for concurrent use.
type Set struct {
	// byLen[n] is set when some plan's source name is n bytes long (n < 256): most metrics
	// of a scrape match no mapping, and this rejects them without hashing their name.
	byLen    [256]bool
	plans    map[string]*plan
	mappings int
	entries  int
	// preferred are the sources of the mappings others stand in for (FallbackFor).
	preferred map[string]bool
}

// Mappings is the number of MetricMappings compiled into the set.
func (s *Set) Mappings() int { return s.mappings }

// Entries is the number of metric entries compiled into the set.
func (s *Set) Entries() int { return s.entries }

// Compile builds a Set from mappings in the order they run: built-ins first, then users'.
// The mappings must be valid (metricmapping.Validate).
func Compile(mappings []metricmapping.MetricMapping) *Set {
	s := &Set{plans: map[string]*plan{}, mappings: len(mappings)}
	get := func(name string) *plan {
		p, ok := s.plans[name]
		if !ok {
			p = &plan{to: name}
			s.plans[name] = p
		}
		return p
	}
	var renames []rename
	byName := map[string]metricmapping.MetricMapping{}
	for _, m := range mappings {
		byName[m.Name] = m
	}
	var fallbacks []string
	for _, m := range mappings {
		if preferred, ok := byName[m.FallbackFor]; ok && m.FallbackFor != m.Name {
			if s.preferred == nil {
				s.preferred = map[string]bool{}
			}
			for _, e := range preferred.Metrics {
				s.preferred[e.From] = true
			}
			for _, e := range m.Metrics {
				fallbacks = append(fallbacks, e.From)
			}
		}
		for _, e := range m.Metrics {
			s.entries++
			from := sourceName(e)
			if e.Part != "" {
				pt := partCount
				if e.Part == metricmapping.PartSum {
					pt = partSum
				}
				src := get(e.From)
				if !hasExtraction(src.extract, from) {
					src.extract = append(src.extract, extraction{part: pt, name: from})
				}
			}
			p := get(from)
			if e.FromUnit != "" {
				u, _ := units.Parse(e.FromUnit)
				p.convert = append(p.convert, u)
			}
			for _, l := range e.Labels {
				op := labelOp{name: l.Name, from: l.From, values: l.Values}
				if l.Value != nil {
					op.value = *l.Value
				}
				p.labels = append(p.labels, op)
			}
			renames = append(renames, rename{from, e.To})
		}
	}
	for _, name := range fallbacks {
		if !s.preferred[name] {
			get(name).fallback = true
		}
	}
	for name := range s.preferred {
		if p, ok := s.plans[name]; ok {
			p.preferred = true
		}
	}
	// Resolve each name's chain of renames now, once.
	for name, p := range s.plans {
		cur := renamed(name, renames, nil)
		p.to = cur
		p.unit = units.OfName(cur)
		p.help = canonical()[cur]
		if len(name) < len(s.byLen) {
			s.byLen[len(name)] = true
		}
	}
	return s
}

// rename is one entry's rename statement: a metric named from becomes to.
type rename struct{ from, to string }

// renamed follows name through every rename statement in order, as the reference runs them,
// so a later entry whose from is an earlier entry's to renames again. It returns the final
// name, and marks in applied, when not nil, the statements that fired.
func renamed(name string, renames []rename, applied []bool) string {
	for i, r := range renames {
		if name == r.from {
			if applied != nil {
				applied[i] = true
			}
			name = r.to
		}
	}
	return name
}

// sourceName is the name a metric has when e's conversion, labels and rename apply to it:
// e.From, or for a part the internal name of the metric extracted from e.From.
func sourceName(e metricmapping.Entry) string {
	switch e.Part {
	case metricmapping.PartCount:
		return e.From + partSep + "count"
	case metricmapping.PartSum:
		return e.From + partSep + "sum"
	}
	return e.From
}

type descRewrite struct {
	unit     units.Unit
	from, to string
}

// description returns desc rewritten for a value converted from u.
func (p *plan) description(desc string, u units.Unit) string {
	if c := p.desc.Load(); c != nil && c.unit == u && c.from == desc {
		return c.to
	}
	to := targetDescription(desc, u)
	p.desc.Store(&descRewrite{unit: u, from: desc, to: to})
	return to
}

func hasExtraction(list []extraction, name string) bool {
	for _, x := range list {
		if x.name == name {
			return true
		}
	}
	return false
}

// lookup returns the plan for a metric name.
func (s *Set) lookup(name string) (*plan, bool) {
	if len(name) < len(s.byLen) && !s.byLen[len(name)] {
		return nil, false
	}
	p, ok := s.plans[name]
	return p, ok
}
