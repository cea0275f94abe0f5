// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package pipelines reads the pipelines of a collector configuration as confmap converters
// see it: raw maps, before the collector has decoded or validated anything.
package pipelines // import "github.com/modelplaneai/otelcol-modelplane/internal/pipelines"

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// Pipeline is one entry of service::pipelines, its component lists as written.
type Pipeline struct {
	ID                               string
	Receivers, Processors, Exporters []string
}

// All returns the pipelines of conf, sorted by ID. An entry that is not a map, or a list
// entry that is not a string, is left out: the collector reports those itself.
func All(conf *confmap.Conf) []Pipeline {
	raw, _ := conf.Get("service::pipelines").(map[string]any)
	out := make([]Pipeline, 0, len(raw))
	for _, id := range slices.Sorted(maps.Keys(raw)) {
		body, _ := raw[id].(map[string]any)
		out = append(out, Pipeline{
			ID:         id,
			Receivers:  Strings(body["receivers"]),
			Processors: Strings(body["processors"]),
			Exporters:  Strings(body["exporters"]),
		})
	}
	return out
}

// Metrics returns the metrics pipelines of conf (metrics and metrics/NAME), sorted by ID.
func Metrics(conf *confmap.Conf) []Pipeline {
	var out []Pipeline
	for _, p := range All(conf) {
		if IsType(p.ID, "metrics") {
			out = append(out, p)
		}
	}
	return out
}

// IsType tells whether the component or pipeline ID id (TYPE or TYPE/NAME) is of type typ.
func IsType(id, typ string) bool { return id == typ || strings.HasPrefix(id, typ+"/") }

// IsScraper reports whether a receiver ID names a receiver that takes a Prometheus scrape
// configuration under `config` (node_scrape, prometheus).
func IsScraper(id string) bool { return IsType(id, "node_scrape") || IsType(id, "prometheus") }

// Strings returns the strings of a raw list, leaving out anything else.
func Strings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// IsTrue reads a boolean setting as converters meet it, before decoding: a YAML boolean (a
// variable's value arrives typed), or text. Text that says true counts as true, so a check
// never refuses what the collector's own decoding would report better.
func IsTrue(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		b, err := strconv.ParseBool(v)
		return err == nil && b
	}
	return false
}
