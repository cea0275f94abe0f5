// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver"
)

// defaultEmitted are the modelplane_* names the default configuration emits: the built-ins on
// by default, fed the shared vLLM, SGLang, gateway and picker pages and the GPU fields the dcgm
// receiver reads by default (with a histogram's _bucket, _sum and _count).
func defaultEmitted(t *testing.T) map[string]bool {
	t.Helper()
	sources := map[string]bool{}
	for _, page := range []string{"vllm", "sglang", "gateway-genai", "epp"} {
		f, err := os.Open(filepath.Join("..", "testdata", "exposition", page+".prom"))
		require.NoError(t, err)
		p := expfmt.NewTextParser(model.UTF8Validation)
		families, err := p.TextToMetricFamilies(f)
		f.Close()
		require.NoError(t, err, page)
		for name := range families {
			sources[name] = true
		}
	}
	for _, name := range dcgmreceiver.DefaultFields() {
		sources[name] = true
	}
	cat, err := metricmapping.LoadBuiltin()
	require.NoError(t, err)
	mappings, _ := cat.Select(nil)
	emitted := map[string]bool{}
	for _, m := range mappings {
		for _, e := range m.Metrics {
			if sources[e.From] {
				for _, suffix := range []string{"", "_bucket", "_sum", "_count"} {
					emitted[e.To+suffix] = true
				}
			}
		}
	}
	return emitted
}

// Every shipped alert can fire on what the default configuration emits: each fires in
// promtool's unit tests, on input series whose names the defaults emit, and every metric a
// rule reads is one the defaults emit.
func TestAlertsFireOnTheDefaults(t *testing.T) {
	test := exec.Command(promtool(t), "test", "rules", "modelplane-alerts.test.yaml")
	test.Dir = "prometheus"
	out, err := test.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "SUCCESS")

	emitted := defaultEmitted(t)
	for _, e := range ruleExprs(t) {
		for _, name := range metricsIn(t, e) {
			assert.True(t, emitted[name], "%s, which a rule reads, is not emitted by the default configuration (in %s)", name, e)
		}
	}

	var tests struct {
		Tests []struct {
			InputSeries []struct {
				Series string `yaml:"series"`
			} `yaml:"input_series"`
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	data, err := os.ReadFile("prometheus/modelplane-alerts.test.yaml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &tests))
	fired := map[string]bool{}
	name := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)
	for _, tc := range tests.Tests {
		for _, s := range tc.InputSeries {
			n := name.FindString(s.Series)
			assert.True(t, emitted[n], "input series %s is not emitted by the default configuration", n)
		}
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fired[a.Alertname] = true
			}
		}
	}
	for _, r := range rulesOf(t, "prometheus/modelplane-alerts.yaml") {
		assert.True(t, fired[r.Alert], "%s never fires in modelplane-alerts.test.yaml", r.Alert)
	}
}

// The fleet dashboard reads only what the default configuration emits, over Grafana's
// $__rate_interval rather than a fixed window.
func TestDashboardReadsTheDefaults(t *testing.T) {
	emitted := defaultEmitted(t)
	for _, e := range dashboardExprs(t) {
		for _, name := range metricsIn(t, e) {
			assert.True(t, emitted[name], "%s, which a panel reads, is not emitted by the default configuration (in %s)", name, e)
		}
	}
	for _, file := range []string{"grafana/modelplane-fleet.json", "grafana/otelcol-modelplane-collector.json"} {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.NotRegexp(t, `rate\([^\[]*\[[0-9]+[smh]\]`, string(data), "%s: a rate over a fixed range; use $__rate_interval", file)
	}
}
