// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package metricmapping

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// document is the strict shape of one MetricMapping object as Kubernetes stores it.
type document struct {
	APIVersion string         `yaml:"apiVersion"`
	Kind       string         `yaml:"kind"`
	Metadata   map[string]any `yaml:"metadata"`
	Spec       struct {
		Metrics []Entry `yaml:"metrics"`
	} `yaml:"spec"`
	Status any `yaml:"status"`
}

// Result is what one file holds.
type Result struct {
	// Mappings are the valid MetricMapping documents, in file order.
	Mappings []MetricMapping
	// Errors holds one error per document that could not be used, each naming the source,
	// the document and the field.
	Errors []error
	// Skipped names documents of other kinds, such as `document 2 (ConfigMap "x")`.
	Skipped []string
}

// Decode reads every YAML document in data. A document of another kind is skipped; an
// invalid MetricMapping is reported in Result.Errors and the others still load.
func Decode(source string, data []byte) Result {
	return decode(source, data, true)
}

// DecodeObject is Decode for an object that is not a file a user wrote, such as one read from
// the API server and encoded for Decode: its problems are named without lines.
func DecodeObject(source string, data []byte) Result {
	return decode(source, data, false)
}

func decode(source string, data []byte, lines bool) Result {
	var res Result
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return res
		}
		if err != nil {
			// A syntax error ends the stream: yaml cannot resynchronise after it.
			res.Errors = append(res.Errors, fmt.Errorf("%s: document %d: %w", source, n, err))
			return res
		}
		if node.Kind == 0 || (len(node.Content) == 1 && node.Content[0].Tag == "!!null") {
			continue // an empty document, as after a trailing ---
		}
		items, isList, err := listItems(&node)
		switch {
		case err != nil:
			res.Errors = append(res.Errors, fmt.Errorf("%s: document %d: %w", source, n, err))
		case isList:
			// What `kubectl get metricmappings -o yaml` writes: one List of every object.
			for i, item := range items {
				res.add(decodeDocument(source, fmt.Sprintf("document %d, items[%d]", n, i), item, lines))
			}
		default:
			res.add(decodeDocument(source, fmt.Sprintf("document %d", n), &node, lines))
		}
	}
}

func (res *Result) add(m MetricMapping, skipped string, err error) {
	switch {
	case err != nil:
		res.Errors = append(res.Errors, err)
	case skipped != "":
		res.Skipped = append(res.Skipped, skipped)
	default:
		res.Mappings = append(res.Mappings, m)
	}
}

// listItems returns the items of a Kubernetes list document: `kind: List` (apiVersion v1),
// as kubectl writes several objects, or `kind: MetricMappingList`, as the API server lists
// them. isList is false for any other document.
func listItems(node *yaml.Node) (items []*yaml.Node, isList bool, err error) {
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
	}
	if node.Decode(&head) != nil {
		return nil, false, nil // not a mapping at all; decodeDocument says so
	}
	switch {
	case head.Kind == "List" && head.APIVersion == "v1":
	case head.Kind == Kind+"List" && head.APIVersion == APIVersion:
	default:
		return nil, false, nil
	}
	body := node
	if body.Kind == yaml.DocumentNode && len(body.Content) == 1 {
		body = body.Content[0]
	}
	for i := 0; i+1 < len(body.Content); i += 2 {
		if body.Content[i].Value != "items" {
			continue
		}
		seq := body.Content[i+1]
		if seq.Tag == "!!null" {
			return nil, true, nil
		}
		if seq.Kind != yaml.SequenceNode {
			return nil, true, fmt.Errorf("%s: items: want a list of objects, got %s", head.Kind, kindName(seq))
		}
		return seq.Content, true, nil
	}
	return nil, true, nil
}

// decodeDocument reads one object; at names where it stands in its file, and lines says
// whether its problems are named with their lines there.
func decodeDocument(source, at string, node *yaml.Node, lines bool) (MetricMapping, string, error) {
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name        string            `yaml:"name"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
	}
	if err := node.Decode(&head); err != nil {
		// Named by field rather than by yaml's Go types: `metadata: want a mapping of fields,
		// got a list`. Keys the head does not read are not this check's to refuse.
		var problems []string
		w := fieldWalker{walked: map[*yaml.Node]bool{}, unknown: func(*yaml.Node, *yaml.Node, string, []string) {},
			mismatch: func(line int, path, msg string) {
				if !lines {
					line = 0
				}
				problems = append(problems, (&FieldError{Line: line, Field: path, Msg: msg}).Error())
			}}
		w.walk(node, reflect.TypeOf(head), "", node.Line)
		if len(problems) > 0 {
			return MetricMapping{}, "", fmt.Errorf("%s: %s: not a Kubernetes object: %s", source, at, strings.Join(problems, "; "))
		}
		return MetricMapping{}, "", fmt.Errorf("%s: %s: not a Kubernetes object: %w", source, at, err)
	}
	if head.Kind != Kind {
		return MetricMapping{}, fmt.Sprintf("%s: %s (%s %q)", source, at, head.Kind, head.Metadata.Name), nil
	}
	label := at
	if head.Metadata.Name != "" {
		label = fmt.Sprintf("MetricMapping %q", head.Metadata.Name)
	}
	if head.APIVersion != APIVersion {
		return MetricMapping{}, "", fmt.Errorf("%s: %s: apiVersion: %q is not supported (want %s)", source, label, head.APIVersion, APIVersion)
	}
	// A misspelt field or a value of the wrong kind is an error, not silently ignored or
	// named by yaml's Go types: named with its line in the file, together with whatever else
	// is wrong in the document, so one run shows every problem.
	shape, holders, mismatch := shapeErrorsIn(node, reflect.TypeOf(document{}), "")
	if mismatch {
		return MetricMapping{}, "", newError(source, head.Metadata.Name, label, shape, lines)
	}
	// Decode again, strictly where no field is unknown, for anything the walk does not check.
	raw, err := yaml.Marshal(node)
	if err != nil {
		return MetricMapping{}, "", fmt.Errorf("%s: %s: %w", source, label, err)
	}
	var doc document
	strict := yaml.NewDecoder(bytes.NewReader(raw))
	strict.KnownFields(len(shape) == 0)
	if err := strict.Decode(&doc); err != nil {
		if len(shape) > 0 {
			return MetricMapping{}, "", newError(source, head.Metadata.Name, label, shape, lines)
		}
		return MetricMapping{}, "", fmt.Errorf("%s: %s: %w", source, label, err)
	}
	m := MetricMapping{
		Name:         head.Metadata.Name,
		Source:       source,
		Metrics:      doc.Spec.Metrics,
		OffByDefault: head.Metadata.Annotations[AnnotationBuiltinDefault] == "false",
		FallbackFor:  head.Metadata.Annotations[AnnotationFallbackFor],
	}
	errs := shape
	var verr *Error
	if err := Validate(&m); errors.As(err, &verr) {
		for _, fe := range verr.Errs {
			var at *yaml.Node
			fe.Line, at = locate(node, fe.Field)
			// What a misspelt key leaves out of its object ("from: required" after "form: a")
			// is said by the unknown field already.
			if !holders[at] {
				errs = append(errs, fe)
			}
		}
	}
	if len(errs) > 0 {
		return MetricMapping{}, "", newError(source, head.Metadata.Name, label, errs, lines)
	}
	return m, "", nil
}

// newError is the Error of one document, its problems in file order, with or without lines.
func newError(source, name, label string, errs []*FieldError, lines bool) *Error {
	if !lines {
		for _, fe := range errs {
			fe.Line = 0
		}
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	return &Error{Source: source, Name: name, label: label, Errs: errs}
}
