// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package metricmapping holds the Modelplane MetricMapping API (modelplane.ai/v1alpha1): its
// types, the decoder and validation of mapping files and objects, and the built-in catalog.
package metricmapping // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"

const (
	// APIVersion is the only version this decoder accepts.
	APIVersion = "modelplane.ai/v1alpha1"
	// Kind is the kind of the documents this package reads; other kinds are skipped.
	Kind = "MetricMapping"
)

// MetricMapping is one named list of metric translations.
type MetricMapping struct {
	// Name is metadata.name of the document.
	Name string `yaml:"-"`
	// Source says where the mapping came from, for messages: a file path, "builtin/<file>"
	// or "config".
	Source  string  `yaml:"-"`
	Metrics []Entry `yaml:"metrics"`
	// OffByDefault is set by the annotation modelplane.ai/builtin-default: "false"; only the
	// built-in catalog uses it.
	OffByDefault bool `yaml:"-"`
	// FallbackFor, set by the annotation modelplane.ai/fallback-for, names the mapping this
	// one stands in for: it maps a source's batch only when that batch holds none of the
	// metrics the named mapping reads (an older release of the same software).
	FallbackFor string `yaml:"-"`
}

// AnnotationBuiltinDefault marks a catalog mapping that runs only when selected by name.
const AnnotationBuiltinDefault = "modelplane.ai/builtin-default"

// AnnotationFallbackFor names the mapping a mapping stands in for (MetricMapping.FallbackFor).
const AnnotationFallbackFor = "modelplane.ai/fallback-for"

// Entry translates one source metric.
type Entry struct {
	From     string  `yaml:"from"`
	To       string  `yaml:"to"`
	FromUnit string  `yaml:"fromUnit,omitempty"`
	Part     string  `yaml:"part,omitempty"`
	Labels   []Label `yaml:"labels,omitempty"`
}

// Label sets one datapoint attribute: either a fixed Value, or a copy of attribute From
// with its values optionally rewritten through Values.
type Label struct {
	Name   string            `yaml:"name"`
	Value  *string           `yaml:"value,omitempty"`
	From   string            `yaml:"from,omitempty"`
	Values map[string]string `yaml:"values,omitempty"`
}

// Parts an entry may extract.
const (
	PartCount = "Count"
	PartSum   = "Sum"
)

// Schema limits of modelplane.ai/v1alpha1.
const (
	maxEntries     = 128
	maxNameLen     = 255
	maxLabels      = 16
	maxLabelName   = 63
	maxLabelValues = 32
	maxValueLen    = 253
	maxObjectName  = 253
)
