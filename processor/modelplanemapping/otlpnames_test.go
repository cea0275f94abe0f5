// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

// pushedNames is how the Envoy AI Gateway names its GenAI metrics when it pushes them over
// OTLP (OTEL_METRICS_EXPORTER=otlp) rather than serving them on /metrics: the OpenTelemetry
// semantic-convention names, with the unit apart.
var pushedNames = map[string][2]string{
	"gen_ai_server_request_duration_seconds":      {"gen_ai.server.request.duration", "s"},
	"gen_ai_server_time_to_first_token_seconds":   {"gen_ai.server.time_to_first_token", "s"},
	"gen_ai_server_time_per_output_token_seconds": {"gen_ai.server.time_per_output_token", "s"},
	"gen_ai_client_token_usage":                   {"gen_ai.client.token.usage", "{token}"},
}

// asPushed rewrites the gateway's scraped metrics as the gateway pushes the same readings
// over OTLP: semantic-convention metric names and units, and attribute keys with dots
// (gen_ai.operation.name, error.type) where the page has underscores.
func asPushed(t *testing.T, md pmetric.Metrics) pmetric.Metrics {
	out := pmetric.NewMetrics()
	md.CopyTo(out)
	renamed := 0
	points.EachMetric(out, func(_ pcommon.Map, m pmetric.Metric) {
		pushed, ok := pushedNames[m.Name()]
		if !ok {
			return
		}
		renamed++
		m.SetName(pushed[0])
		m.SetUnit(pushed[1])
		points.EachAttributes(m, func(attrs pcommon.Map) bool {
			raw := attrs.AsRaw()
			attrs.Clear()
			for k, v := range raw {
				switch {
				case strings.HasPrefix(k, "gen_ai_"):
					k = "gen_ai." + strings.ReplaceAll(strings.TrimPrefix(k, "gen_ai_"), "_", ".")
				case k == "error_type":
					k = "error.type"
				}
				require.NoError(t, attrs.PutEmpty(k).FromRaw(v))
			}
			return true
		})
	})
	require.Len(t, pushedNames, renamed, "the gateway page holds each metric once")
	return out
}

// The AI gateway pushing OTLP gets the same modelplane_* series, values and labels as the
// same gateway scraped, once otlp_names is on; with it off (the default, as in the reference)
// the pushed metrics match no mapping and are dropped.
func TestOTLPNamesMapPushedGatewayMetrics(t *testing.T) {
	scraped, err := scrapetest.Scrape(context.Background(), []scrapetest.Target{{
		Job: "gateway", File: "gateway-genai.prom", Labels: map[string]string{"namespace": "gateway", "node": "gpu-node-01"},
	}})
	require.NoError(t, err)
	pushed := asPushed(t, scraped)

	cfg := createDefaultConfig()
	cfg.Builtin = []string{"modelplane-gateway"}
	require.NoError(t, cfg.Validate())
	// The processor works in place: each run gets its own copy.
	run := func(md pmetric.Metrics) map[string]string {
		in := pmetric.NewMetrics()
		md.CopyTo(in)
		return series(runOnce(t, cfg, in), exact)
	}
	want := run(scraped)
	require.NotEmpty(t, want)
	assert.Empty(t, run(pushed), "without otlp_names a pushed metric matches no mapping")

	cfg.OTLPNames = true
	require.NoError(t, cfg.Validate())
	got := run(pushed)
	for _, d := range compareSeries(want, got) {
		t.Error(d)
	}
	t.Logf("%d series from the pushed metrics, as from the page", len(got))

	// A scraped batch is left exactly as it was without the option.
	assert.Equal(t, want, run(scraped))
}
