// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package metricmapping

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

var (
	fromPattern       = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	toPattern         = regexp.MustCompile(`^modelplane_[a-z0-9_]*[a-z0-9]$`)
	labelNamePattern  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	objectNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// FieldError is one rule a mapping breaks, with the path of the field and the value.
type FieldError struct {
	Line  int    // where the field is written in its file; 0 where there is no file
	Field string // such as metrics[3].fromUnit; empty for a key of the document itself
	Msg   string // what is wrong, quoting the value
}

func (e *FieldError) Error() string {
	msg := e.Msg
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Line > 0 {
		msg = fmt.Sprintf("line %d: %s", e.Line, msg)
	}
	return msg
}

// Error is every rule one mapping breaks, named by its source and name, such as
// `mappings/engine.yaml: MetricMapping "my-engine": line 31: metrics[3].fromUnit: unknown unit
// "Milisecond" (...)`, each with its line where the mapping was read from a file.
type Error struct {
	Source string
	Name   string
	Errs   []*FieldError
	// label names the document where it has no name (`document 2`); by default the name.
	label string
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Errs))
	for i, fe := range e.Errs {
		parts[i] = fe.Error()
	}
	prefix := e.label
	if prefix == "" {
		prefix = fmt.Sprintf("MetricMapping %q", e.Name)
	}
	if e.Source != "" {
		prefix = e.Source + ": " + prefix
	}
	return prefix + ": " + strings.Join(parts, "; ")
}

// Validate checks every rule of the MetricMapping schema and the rules it cannot express:
// a duplicate (from, part) pair within the mapping, and one `to` fed by a counter part and a
// whole histogram. It returns nil or an *Error naming every problem.
func Validate(m *MetricMapping) error {
	var errs []*FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}

	switch {
	case m.Name == "":
		add("metadata.name", "required")
	case len(m.Name) > maxObjectName:
		add("metadata.name", "%q is longer than %d characters", m.Name, maxObjectName)
	case !objectNamePattern.MatchString(m.Name):
		add("metadata.name", "%q is not a lowercase DNS subdomain name", m.Name)
	}
	switch n := len(m.Metrics); {
	case n == 0:
		add("spec.metrics", "needs at least 1 entry")
	case n > maxEntries:
		add("spec.metrics", "has %d entries, at most %d allowed", n, maxEntries)
	}

	type fromPart struct{ from, part string }
	seen := map[fromPart]int{}
	toKind := map[string]string{} // to -> "counter" (a part) or "whole"
	toFirst := map[string]int{}
	for i, e := range m.Metrics {
		p := fmt.Sprintf("metrics[%d]", i)
		checkName(add, p+".from", e.From, fromPattern, maxNameLen, `^[a-zA-Z_:][a-zA-Z0-9_:]*$`+fromHint(e.From))
		checkName(add, p+".to", e.To, toPattern, maxNameLen, `^modelplane_[a-z0-9_]*[a-z0-9]$`+toHint(e.To))
		if e.FromUnit != "" {
			if _, ok := units.Parse(e.FromUnit); !ok {
				meant := ""
				if u, ok := units.Meant(e.FromUnit); ok {
					meant = fmt.Sprintf(", did you mean %q?", u)
				} else if units.IsBase(e.FromUnit) {
					meant = ", the unit values are converted to: a source in it needs no fromUnit"
				}
				add(p+".fromUnit", "unknown unit %q%s (want one of %s)", e.FromUnit, meant, strings.Join(units.Names(), ", "))
			}
		}
		if e.Part != "" && e.Part != PartCount && e.Part != PartSum {
			meant := ""
			for _, part := range []string{PartCount, PartSum} {
				if strings.EqualFold(e.Part, part) {
					meant = fmt.Sprintf(", did you mean %q?", part)
				}
			}
			add(p+".part", "unknown part %q%s (want Count or Sum)", e.Part, meant)
		}
		if e.Part == PartCount && e.FromUnit != "" {
			add(p+".fromUnit", "%q does not apply to part Count, which counts observations", e.FromUnit)
		}
		if e.From != "" {
			k := fromPart{e.From, e.Part}
			if j, dup := seen[k]; dup {
				add(p+".from", "%q duplicates metrics[%d].from", e.From, j)
			} else {
				seen[k] = i
			}
		}
		kind := "whole"
		if e.Part != "" {
			kind = "counter"
		}
		if prev, ok := toKind[e.To]; ok && prev != kind && e.To != "" {
			add(p+".to", "%q is also fed by metrics[%d] with a different type (a part is a counter, a whole metric keeps its type)", e.To, toFirst[e.To])
		} else if !ok {
			toKind[e.To], toFirst[e.To] = kind, i
		}
		validateLabels(add, p, e.Labels)
	}
	if len(errs) == 0 {
		return nil
	}
	return &Error{Source: m.Source, Name: m.Name, Errs: errs}
}

func validateLabels(add func(field, format string, args ...any), p string, labels []Label) {
	if len(labels) > maxLabels {
		add(p+".labels", "has %d entries, at most %d allowed", len(labels), maxLabels)
	}
	names := map[string]int{}
	for j, l := range labels {
		lp := fmt.Sprintf("%s.labels[%d]", p, j)
		checkName(add, lp+".name", l.Name, labelNamePattern, maxLabelName, `^[a-zA-Z_][a-zA-Z0-9_]*$`+labelHint(l.Name))
		if k, dup := names[l.Name]; dup && l.Name != "" {
			add(lp+".name", "%q duplicates %s.labels[%d].name", l.Name, p, k)
		} else {
			names[l.Name] = j
		}
		switch {
		case l.Value != nil && l.From != "":
			add(lp, "sets both value and from; exactly one is allowed")
		case l.Value == nil && l.From == "":
			add(lp, "needs exactly one of value and from")
		}
		if l.Value != nil && len(*l.Value) > maxValueLen {
			add(lp+".value", "%q is longer than %d characters", *l.Value, maxValueLen)
		}
		if l.From != "" {
			checkName(add, lp+".from", l.From, labelNamePattern, maxLabelName, `^[a-zA-Z_][a-zA-Z0-9_]*$`+labelHint(l.From))
		}
		if len(l.Values) > 0 && l.From == "" {
			// Said of the label, whose from is what is missing (or misspelt).
			add(lp, "has values but no from")
		}
		if len(l.Values) > maxLabelValues {
			add(lp+".values", "has %d entries, at most %d allowed", len(l.Values), maxLabelValues)
		}
		for k, v := range l.Values {
			if len(k) > maxValueLen {
				add(lp+".values", "key %q is longer than %d characters", k, maxValueLen)
			}
			if len(v) > maxValueLen {
				add(lp+".values["+k+"]", "%q is longer than %d characters", v, maxValueLen)
			}
		}
	}
}

func checkName(add func(field, format string, args ...any), field, v string, re *regexp.Regexp, max int, pattern string) {
	switch {
	case v == "":
		add(field, "required")
	case len(v) > max:
		add(field, "%q is longer than %d characters", v, max)
	case !re.MatchString(v):
		add(field, "%q does not match %s", v, pattern)
	}
}

// fromHint explains a from that names a metric as OpenTelemetry does, with dots, rather than
// as a Prometheus page spells it, which is what mappings name.
func fromHint(from string) string {
	if !strings.Contains(from, ".") || !fromPattern.MatchString(strings.ReplaceAll(from, ".", "_")) {
		return ""
	}
	return fmt.Sprintf(": mappings name a metric as a Prometheus page spells it; one pushed over OTLP as %q is read as %q with its unit's suffix (such as _seconds) and otlp_names: true",
		from, strings.ReplaceAll(from, ".", "_"))
}

// toHint gives the name a to that breaks the pattern was most likely meant to be: lower
// case, underscores for other characters, the modelplane_ prefix (only modelplane_* series
// leave the collector).
func toHint(to string) string {
	meant := strings.Trim(underscored(strings.ToLower(to)), "_")
	if !strings.HasPrefix(meant, "modelplane_") {
		meant = "modelplane_" + meant
	}
	if meant == to || !toPattern.MatchString(meant) {
		return ""
	}
	return fmt.Sprintf(" (every target is a modelplane_* name in lower case: %q?)", meant)
}

// labelHint gives the label name one that breaks the pattern was likely meant to be, each
// other character an underscore, as Prometheus names labels and otlp_names reads an
// OpenTelemetry attribute (gen_ai.token.type as gen_ai_token_type).
func labelHint(name string) string {
	meant := underscored(name)
	if meant == name || !labelNamePattern.MatchString(meant) {
		return ""
	}
	return fmt.Sprintf(" (%q?)", meant)
}

// underscored is s with an underscore for every character a Prometheus name cannot hold
// (anything but letters, digits and underscores).
func underscored(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
