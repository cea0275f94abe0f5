// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
)

// MetricMappings name metrics as a Prometheus page spells them; a metric pushed over OTLP
// carries its OpenTelemetry name instead (gen_ai.server.request.duration), which Options.OTLPNames
// looks up under the Prometheus exporters' name for it (gen_ai_server_request_duration_seconds).

var (
	metricNamer = otlptranslator.MetricNamer{WithMetricSuffixes: true}
	labelNamer  = otlptranslator.LabelNamer{}
)

// isPrometheusName reports whether name is a valid Prometheus metric name: then it is taken
// as written, and nothing about it allocates.
func isPrometheusName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// prometheusName is the name an OpenTelemetry Prometheus exporter gives m: invalid characters
// as underscores, the unit as a suffix (_seconds, _bytes, ...), _total on monotonic sums.
func prometheusName(m pmetric.Metric) (string, bool) {
	var t otlptranslator.MetricType = otlptranslator.MetricTypeUnknown
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		t = otlptranslator.MetricTypeGauge
	case pmetric.MetricTypeSum:
		t = otlptranslator.MetricTypeNonMonotonicCounter
		if m.Sum().IsMonotonic() {
			t = otlptranslator.MetricTypeMonotonicCounter
		}
	case pmetric.MetricTypeHistogram:
		t = otlptranslator.MetricTypeHistogram
	case pmetric.MetricTypeExponentialHistogram:
		t = otlptranslator.MetricTypeExponentialHistogram
	case pmetric.MetricTypeSummary:
		t = otlptranslator.MetricTypeSummary
	}
	name, err := metricNamer.Build(otlptranslator.Metric{Name: m.Name(), Unit: m.Unit(), Type: t})
	return name, err == nil && name != ""
}

// translateAttributeKeys renames the point attributes of m as those exporters name labels
// (gen_ai.operation.name becomes gen_ai_operation_name), so label rules written for the page
// find them. A translated key that the point already has keeps the point's own value.
func translateAttributeKeys(m pmetric.Metric) {
	points.EachAttributes(m, func(attrs pcommon.Map) bool {
		var renames [][2]string
		for k := range attrs.All() {
			if isPrometheusName(k) {
				continue
			}
			if to, err := labelNamer.Build(k); err == nil && to != k {
				renames = append(renames, [2]string{k, to})
			}
		}
		for _, r := range renames {
			v, _ := attrs.Get(r[0])
			if _, taken := attrs.Get(r[1]); !taken {
				v.CopyTo(attrs.PutEmpty(r[1]))
			}
			attrs.Remove(r[0])
		}
		return true
	})
}
