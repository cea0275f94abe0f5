// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package metricmapping

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func str(s string) *string { return &s }

func valid() MetricMapping {
	return MetricMapping{Name: "my-engine", Source: "mappings/engine.yaml", Metrics: []Entry{
		{From: "my_engine_queued_requests", To: "modelplane_requests_waiting"},
		{From: "my_engine_kv_transfer_ms", To: "modelplane_request_kv_transfer_seconds", FromUnit: "Milliseconds"},
		{From: "my_engine_request_duration_seconds", Part: PartCount, To: "modelplane_requests_total"},
		{From: "my_engine_finished_requests_total", To: "modelplane_responses_total", Labels: []Label{
			{Name: "reason", From: "finish_reason", Values: map[string]string{"eos": "stop"}},
		}},
	}}
}

// Each rule of the schema, and each rule it cannot express, with the exact message.
func TestValidateRules(t *testing.T) {
	long := strings.Repeat("a", 256)
	cases := []struct {
		name   string
		mutate func(m *MetricMapping)
		want   string
	}{
		{"name required", func(m *MetricMapping) { m.Name = "" }, `metadata.name: required`},
		{"name pattern", func(m *MetricMapping) { m.Name = "My_Engine" }, `metadata.name: "My_Engine" is not a lowercase DNS subdomain name`},
		{"no entries", func(m *MetricMapping) { m.Metrics = nil }, `spec.metrics: needs at least 1 entry`},
		{"too many entries", func(m *MetricMapping) {
			m.Metrics = nil
			for i := 0; i < 129; i++ {
				m.Metrics = append(m.Metrics, Entry{From: fmt.Sprintf("m%d", i), To: "modelplane_x"})
			}
		}, `spec.metrics: has 129 entries, at most 128 allowed`},
		{"from required", func(m *MetricMapping) { m.Metrics[0].From = "" }, `metrics[0].from: required`},
		{"from pattern", func(m *MetricMapping) { m.Metrics[0].From = "my-engine.queued" }, `metrics[0].from: "my-engine.queued" does not match ^[a-zA-Z_:][a-zA-Z0-9_:]*$`},
		{"from length", func(m *MetricMapping) { m.Metrics[0].From = long }, `metrics[0].from: "` + long + `" is longer than 255 characters`},
		{"to required", func(m *MetricMapping) { m.Metrics[0].To = "" }, `metrics[0].to: required`},
		{"to pattern", func(m *MetricMapping) { m.Metrics[0].To = "requests_waiting" }, `metrics[0].to: "requests_waiting" does not match ^modelplane_[a-z0-9_]*[a-z0-9]$ (every target is a modelplane_* name in lower case: "modelplane_requests_waiting"?)`},
		{"to case", func(m *MetricMapping) { m.Metrics[0].To = "modelplane_KV-Usage" }, `metrics[0].to: "modelplane_KV-Usage" does not match ^modelplane_[a-z0-9_]*[a-z0-9]$ (every target is a modelplane_* name in lower case: "modelplane_kv_usage"?)`},
		{"from OTel name", func(m *MetricMapping) { m.Metrics[0].From = "gen_ai.server.request.duration" }, `metrics[0].from: "gen_ai.server.request.duration" does not match ^[a-zA-Z_:][a-zA-Z0-9_:]*$: mappings name a metric as a Prometheus page spells it; one pushed over OTLP as "gen_ai.server.request.duration" is read as "gen_ai_server_request_duration" with its unit's suffix (such as _seconds) and otlp_names: true`},
		{"to trailing underscore", func(m *MetricMapping) { m.Metrics[0].To = "modelplane_x_" }, `metrics[0].to: "modelplane_x_" does not match`},
		{"unit enum", func(m *MetricMapping) { m.Metrics[1].FromUnit = "Milisecond" }, `metrics[1].fromUnit: unknown unit "Milisecond", did you mean "Milliseconds"? (want one of Millijoules, Milliseconds, Nanoseconds, Mebibytes, Percent, Microseconds`},
		{"part enum", func(m *MetricMapping) { m.Metrics[2].Part = "Buckets" }, `metrics[2].part: unknown part "Buckets" (want Count or Sum)`},
		{"part case", func(m *MetricMapping) { m.Metrics[2].Part = "count" }, `metrics[2].part: unknown part "count", did you mean "Count"? (want Count or Sum)`},
		{"unit abbreviation", func(m *MetricMapping) { m.Metrics[1].FromUnit = "ms" }, `metrics[1].fromUnit: unknown unit "ms", did you mean "Milliseconds"? (want one of`},
		{"unit on count", func(m *MetricMapping) { m.Metrics[2].FromUnit = "Milliseconds" }, `metrics[2].fromUnit: "Milliseconds" does not apply to part Count`},
		{"duplicate from", func(m *MetricMapping) { m.Metrics[1].From = m.Metrics[0].From }, `metrics[1].from: "my_engine_queued_requests" duplicates metrics[0].from`},
		{"to of two types", func(m *MetricMapping) { m.Metrics[2].To = "modelplane_requests_waiting" }, `metrics[2].to: "modelplane_requests_waiting" is also fed by metrics[0] with a different type`},
		{"too many labels", func(m *MetricMapping) {
			for i := 0; i < 17; i++ {
				m.Metrics[0].Labels = append(m.Metrics[0].Labels, Label{Name: fmt.Sprintf("l%d", i), Value: str("v")})
			}
		}, `metrics[0].labels: has 17 entries, at most 16 allowed`},
		{"label name pattern", func(m *MetricMapping) { m.Metrics[3].Labels[0].Name = "9reason" }, `metrics[3].labels[0].name: "9reason" does not match ^[a-zA-Z_][a-zA-Z0-9_]*$`},
		{"label name length", func(m *MetricMapping) { m.Metrics[3].Labels[0].Name = strings.Repeat("r", 64) }, `is longer than 63 characters`},
		{"label both", func(m *MetricMapping) { m.Metrics[3].Labels[0].Value = str("x") }, `metrics[3].labels[0]: sets both value and from; exactly one is allowed`},
		{"label neither", func(m *MetricMapping) { m.Metrics[3].Labels[0].From, m.Metrics[3].Labels[0].Values = "", nil }, `metrics[3].labels[0]: needs exactly one of value and from`},
		{"values need from", func(m *MetricMapping) {
			m.Metrics[3].Labels[0].From = ""
			m.Metrics[3].Labels[0].Value = str("x")
		}, `metrics[3].labels[0]: has values but no from`},
		{"label from pattern", func(m *MetricMapping) { m.Metrics[3].Labels[0].From = "finish-reason" }, `metrics[3].labels[0].from: "finish-reason" does not match ^[a-zA-Z_][a-zA-Z0-9_]*$ ("finish_reason"?)`},
		{"label from OTel attribute", func(m *MetricMapping) { m.Metrics[3].Labels[0].From = "gen_ai.token.type" }, `metrics[3].labels[0].from: "gen_ai.token.type" does not match ^[a-zA-Z_][a-zA-Z0-9_]*$ ("gen_ai_token_type"?)`},
		{"value length", func(m *MetricMapping) {
			m.Metrics[0].Labels = []Label{{Name: "a", Value: str(strings.Repeat("v", 254))}}
		}, `metrics[0].labels[0].value: "` + strings.Repeat("v", 254) + `" is longer than 253 characters`},
		{"too many values", func(m *MetricMapping) {
			for i := 0; i < 33; i++ {
				m.Metrics[3].Labels[0].Values[fmt.Sprint(i)] = "x"
			}
		}, `metrics[3].labels[0].values: has 34 entries, at most 32 allowed`},
		{"duplicate label", func(m *MetricMapping) {
			m.Metrics[0].Labels = []Label{{Name: "a", Value: str("1")}, {Name: "a", Value: str("2")}}
		}, `metrics[0].labels[1].name: "a" duplicates metrics[0].labels[0].name`},
	}
	base := valid()
	require.NoError(t, Validate(&base))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := valid()
			m.Metrics[3].Labels[0].Values = map[string]string{"eos": "stop"}
			c.mutate(&m)
			err := Validate(&m)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), `mappings/engine.yaml: MetricMapping "`), err.Error())
		})
	}
}

func TestValidateAllowsCountAndWholeOfOneSource(t *testing.T) {
	m := MetricMapping{Name: "x", Metrics: []Entry{
		{From: "h", Part: PartCount, To: "modelplane_requests_total"},
		{From: "h", Part: PartSum, To: "modelplane_request_seconds_total"},
		{From: "h", To: "modelplane_request_duration_seconds"},
	}}
	assert.NoError(t, Validate(&m))
}
