// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

func TestIsPrometheusName(t *testing.T) {
	for name, want := range map[string]bool{
		"vllm:num_requests_waiting":      true,
		"DCGM_FI_DEV_FB_USED":            true,
		"_x":                             true,
		"gen_ai.server.request.duration": false,
		"9lives":                         false,
		"a9":                             true,
		"":                               false,
		"héllo":                          false,
		"a-b":                            false,
	} {
		assert.Equal(t, want, isPrometheusName(name), name)
	}
}

// The names the OpenTelemetry Prometheus exporters give, for each kind of metric.
func TestPrometheusName(t *testing.T) {
	m := pmetric.NewMetric()
	for _, c := range []struct {
		name, unit string
		set        func()
		want       string
	}{
		{"gen_ai.server.request.duration", "s", func() { m.SetEmptyHistogram() }, "gen_ai_server_request_duration_seconds"},
		{"gen_ai.client.token.usage", "{token}", func() { m.SetEmptyHistogram() }, "gen_ai_client_token_usage"},
		{"http.requests", "{request}", func() { m.SetEmptySum().SetIsMonotonic(true) }, "http_requests_total"},
		{"queue.size", "{request}", func() { m.SetEmptySum() }, "queue_size"},
		{"gpu.memory.used", "By", func() { m.SetEmptyGauge() }, "gpu_memory_used_bytes"},
		{"kv.cache.usage", "1", func() { m.SetEmptyGauge() }, "kv_cache_usage_ratio"},
		{"kv.transfer", "ms", func() { m.SetEmptyExponentialHistogram() }, "kv_transfer_milliseconds"},
	} {
		m.SetName(c.name)
		m.SetUnit(c.unit)
		c.set()
		got, ok := prometheusName(m)
		assert.True(t, ok, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
}
