// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package metricmapping

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ShapeErrors names every key of node that t has no field for, and every value of a kind t
// cannot hold there, at any depth, with its path below at ("metrics[2]: unknown field
// \"form\" (want from, ...)"), and with lines, the line of its key in node's source.
func ShapeErrors(node *yaml.Node, t reflect.Type, at string, lines bool) []string {
	var out []string
	errs, _, _ := shapeErrorsIn(node, t, at)
	for _, fe := range errs {
		if !lines {
			fe.Line = 0
		}
		out = append(out, fe.Error())
	}
	return out
}

// shapeErrorsIn is ShapeErrors as field errors, each with its line, the mappings that hold
// unknown keys, and whether a value is of the wrong kind (which leaves nothing to decode and
// validate there).
func shapeErrorsIn(node *yaml.Node, t reflect.Type, at string) (out []*FieldError, holders map[*yaml.Node]bool, mismatch bool) {
	holders = map[*yaml.Node]bool{}
	w := fieldWalker{
		walked: map[*yaml.Node]bool{},
		unknown: func(holder, key *yaml.Node, path string, want []string) {
			out = append(out, &FieldError{
				Line:  key.Line,
				Field: path,
				Msg:   fmt.Sprintf("unknown field %q (want %s)", key.Value, strings.Join(want, ", ")),
			})
			holders[holder] = true
		},
		mismatch: func(line int, path, msg string) {
			out = append(out, &FieldError{Line: line, Field: path, Msg: msg})
			mismatch = true
		},
	}
	w.walk(node, t, at, node.Line)
	return out, holders, mismatch
}

type fieldWalker struct {
	// walked holds the nodes seen: an anchored node is walked once, however many aliases
	// use it, so a document of nested aliases (a "billion laughs") costs its size, and
	// each unknown field is said once, where it is written.
	walked  map[*yaml.Node]bool
	unknown func(holder, key *yaml.Node, path string, want []string)
	// mismatch says a value is of a kind its field cannot hold, at the line of its key.
	mismatch func(line int, path, msg string)
}

func (w fieldWalker) walk(node *yaml.Node, t reflect.Type, path string, line int) {
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	if node.Kind == yaml.AliasNode && node.Alias != nil {
		node = node.Alias
	}
	if w.walked[node] {
		return
	}
	w.walked[node] = true
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if msg := kindMismatch(node, t); msg != "" {
		w.mismatch(line, path, msg)
		return
	}
	switch {
	case t.Kind() == reflect.Struct && node.Kind == yaml.MappingNode:
		names, types := yamlFields(t)
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, value := node.Content[i], node.Content[i+1]
			if key.Tag == "!!merge" { // `<<: *defaults`: the merged mapping's keys are this one's
				w.walkMerged(value, t, path, key.Line)
				continue
			}
			ft, ok := types[key.Value]
			if !ok {
				w.unknown(node, key, path, names)
				continue
			}
			w.walk(value, ft, joinPath(path, key.Value), key.Line)
		}
	case t.Kind() == reflect.Slice && node.Kind == yaml.SequenceNode:
		for i, item := range node.Content {
			w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), item.Line)
		}
	case t.Kind() == reflect.Map && node.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, value := node.Content[i], node.Content[i+1]
			if key.Tag == "!!merge" {
				continue // yaml merges it; the merged mapping is checked where it is written
			}
			w.walk(value, t.Elem(), fmt.Sprintf("%s[%s]", path, key.Value), key.Line)
		}
	}
}

// wantedKinds is the kind of node each kind of Go value decodes from, and how to say it.
var wantedKinds = map[reflect.Kind]struct {
	node yaml.Kind
	what string
}{
	reflect.Struct: {yaml.MappingNode, "a mapping of fields"},
	reflect.Map:    {yaml.MappingNode, "a mapping"},
	reflect.Slice:  {yaml.SequenceNode, "a list"},
	reflect.String: {yaml.ScalarNode, "a single value"},
}

// kindMismatch says why node cannot be decoded into t ("want a list, got a mapping"), or ""
// where it can. A null (an empty value) decodes into anything, as its zero value.
func kindMismatch(node *yaml.Node, t reflect.Type) string {
	wanted, ok := wantedKinds[t.Kind()]
	if !ok || node.Kind == wanted.node || (node.Kind == yaml.ScalarNode && node.ShortTag() == "!!null") {
		return ""
	}
	want := wanted.what
	msg := fmt.Sprintf("want %s, got %s", want, kindName(node))
	// The likeliest slip: labels written as a mapping of name to rule, where each label is a
	// list item that carries its name.
	if t.Kind() == reflect.Slice && t.Elem() == reflect.TypeOf(Label{}) && node.Kind == yaml.MappingNode && len(node.Content) >= 2 {
		msg += fmt.Sprintf(` (each label is an item of the list that names it: "- name: %s", then its value or from)`, node.Content[0].Value)
	}
	return msg
}

// kindName says what a node is, quoting a scalar.
func kindName(node *yaml.Node) string {
	switch node.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", node.Value)
	default:
		return "nothing"
	}
}

func (w fieldWalker) walkMerged(value *yaml.Node, t reflect.Type, path string, line int) {
	if value.Kind == yaml.SequenceNode { // `<<: [*a, *b]`
		for _, v := range value.Content {
			w.walk(v, t, path, line)
		}
		return
	}
	w.walk(value, t, path, line)
}

// yamlFields returns the YAML keys of struct type t, in declaration order, and their types.
func yamlFields(t reflect.Type) ([]string, map[string]reflect.Type) {
	var names []string
	types := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
		types[name] = f.Type
	}
	return names, types
}

// joinPath extends path by a key. A document's spec.metrics is named metrics, as the
// validation's messages name metrics[0].from.
func joinPath(path, key string) string {
	switch {
	case path == "":
		return key
	case path == "spec" && key == "metrics":
		return key
	default:
		return path + "." + key
	}
}

// locate finds field, as the validation's messages name it (metrics[2].labels[0]), in doc: its
// line and node, or for a field the document lacks, those of the nearest enclosing one.
func locate(doc *yaml.Node, field string) (line int, node *yaml.Node) {
	node = deref(doc)
	line = node.Line
	steps := fieldSteps(field)
	if len(steps) > 0 && steps[0] == "metrics" {
		steps = append([]string{"spec"}, steps...)
	}
	for _, step := range steps {
		if i, isIndex := strings.CutPrefix(step, "["); isIndex {
			i = strings.TrimSuffix(i, "]")
			if n, err := strconv.Atoi(i); err == nil && node.Kind == yaml.SequenceNode {
				if n < 0 || n >= len(node.Content) {
					return line, node
				}
				line, node = node.Content[n].Line, deref(node.Content[n])
				continue
			}
			step = i // a key of a map, as in values[eos]
		}
		key, value := mappingValue(node, step)
		if key == nil {
			return line, node
		}
		line, node = key.Line, deref(value)
	}
	return line, node
}

// fieldSteps splits metrics[2].labels[0] into metrics, [2], labels, [0].
func fieldSteps(field string) []string {
	var steps []string
	for field != "" {
		cut := strings.IndexAny(field[1:], ".[")
		step := field
		if cut >= 0 {
			step, field = field[:cut+1], field[cut+1:]
		} else {
			field = ""
		}
		if step = strings.TrimPrefix(step, "."); step != "" {
			steps = append(steps, step)
		}
	}
	return steps
}

// mappingValue is the key and value of name in a mapping node, merge keys included.
func mappingValue(m *yaml.Node, name string) (key, value *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name && m.Content[i].Tag != "!!merge" {
			return m.Content[i], m.Content[i+1]
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag != "!!merge" {
			continue
		}
		merged := deref(m.Content[i+1])
		sources := []*yaml.Node{merged}
		if merged.Kind == yaml.SequenceNode {
			sources = merged.Content
		}
		for _, src := range sources {
			if k, v := mappingValue(deref(src), name); k != nil {
				return k, v
			}
		}
	}
	return nil, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		default:
			return n
		}
	}
}
