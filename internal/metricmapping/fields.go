package metricmapping

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// UnknownFields names every key of node that the type t has no field for, at any depth, with
// its path below at ("metrics[2]") and the fields that are allowed there: `metrics[2]: unknown
// field "form" (want from, to, fromUnit, part, labels)`. With lines, each starts with the
// key's line in node's source. yaml's own strict decoding says `field form not found in type
// metricmapping.Entry`, and counts lines in a re-encoded copy of the document, not in the file.
func UnknownFields(node *yaml.Node, t reflect.Type, at string, lines bool) []string {
	var out []string
	w := fieldWalker{walked: map[*yaml.Node]bool{}, unknown: func(key *yaml.Node, path string, want []string) {
		msg := fmt.Sprintf("unknown field %q (want %s)", key.Value, strings.Join(want, ", "))
		if path != "" {
			msg = path + ": " + msg
		}
		if lines {
			msg = fmt.Sprintf("line %d: %s", key.Line, msg)
		}
		out = append(out, msg)
	}}
	w.walk(node, t, at)
	return out
}

type fieldWalker struct {
	// walked holds the nodes seen: an anchored node is walked once, however many aliases
	// use it, so a document of nested aliases (a "billion laughs") costs its size, and
	// each unknown field is said once, where it is written.
	walked  map[*yaml.Node]bool
	unknown func(key *yaml.Node, path string, want []string)
}

func (w fieldWalker) walk(node *yaml.Node, t reflect.Type, path string) {
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
	switch {
	case t.Kind() == reflect.Struct && node.Kind == yaml.MappingNode:
		names, types := yamlFields(t)
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, value := node.Content[i], node.Content[i+1]
			if key.Tag == "!!merge" { // `<<: *defaults`: the merged mapping's keys are this one's
				w.walkMerged(value, t, path)
				continue
			}
			ft, ok := types[key.Value]
			if !ok {
				w.unknown(key, path, names)
				continue
			}
			w.walk(value, ft, joinPath(path, key.Value))
		}
	case t.Kind() == reflect.Slice && node.Kind == yaml.SequenceNode:
		for i, item := range node.Content {
			w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

func (w fieldWalker) walkMerged(value *yaml.Node, t reflect.Type, path string) {
	if value.Kind == yaml.SequenceNode { // `<<: [*a, *b]`
		for _, v := range value.Content {
			w.walk(v, t, path)
		}
		return
	}
	w.walk(value, t, path)
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
