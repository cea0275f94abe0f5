// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package deploy tests the Grafana dashboards and the Prometheus alert rules: every PromQL
// expression parses with Prometheus's own parser, the rules pass `promtool check rules`, and
// every metric they name is one the built-in catalog produces (the fleet's) or one the
// collector documents (the collector's own).
package deploy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// grafanaVars stand in for dashboard variables, as Grafana substitutes them before querying.
var grafanaVars = strings.NewReplacer("$cluster", ".*", "$deployment", ".*", "$namespace", ".*", "$pod", ".*", "$__rate_interval", "1m")

func dashboardExprs(t *testing.T) []string {
	return dashboardExprsOf(t, "grafana/modelplane-fleet.json")
}

func dashboardExprsOf(t *testing.T, file string) []string {
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(data, &d))
	var out []string
	for _, p := range d.Panels {
		require.NotEmpty(t, p.Targets, p.Title)
		for _, tg := range p.Targets {
			out = append(out, grafanaVars.Replace(tg.Expr))
		}
	}
	return out
}

func ruleExprs(t *testing.T) []string {
	return ruleExprsOf(t, "prometheus/modelplane-alerts.yaml")
}

func ruleExprsOf(t *testing.T, file string) []string {
	var out []string
	for _, r := range rulesOf(t, file) {
		out = append(out, r.Expr)
	}
	return out
}

// rule is one rule of a Prometheus rule file.
type rule struct {
	Alert string `yaml:"alert"`
	Expr  string `yaml:"expr"`
}

// rulesOf are the rules of a rule file, in order.
func rulesOf(t *testing.T, file string) []rule {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var f struct {
		Groups []struct {
			Rules []rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	require.NoError(t, yaml.Unmarshal(data, &f))
	var out []rule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// metricsIn returns the metric names an expression selects.
func metricsIn(t *testing.T, expr string) []string {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	require.NoError(t, err, expr)
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			for _, m := range vs.LabelMatchers {
				if m.Name == model.MetricNameLabel {
					names = append(names, m.Value)
				}
			}
		}
		return nil
	})
	return names
}

func TestExpressionsParseAndUseTheSurface(t *testing.T) {
	catalog := map[string]bool{}
	files, err := os.ReadDir("../processor/modelplanemapping/metricmapping/catalog")
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile("../processor/modelplanemapping/metricmapping/catalog/" + f.Name())
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if to, ok := strings.CutPrefix(strings.TrimSpace(line), "to: "); ok {
				catalog[to] = true
			}
		}
	}
	exprs := append(dashboardExprs(t), ruleExprs(t)...)
	require.NotEmpty(t, exprs)
	for _, e := range exprs {
		for _, name := range metricsIn(t, e) {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			assert.True(t, catalog[base], "%s is not produced by the built-in catalog (in %s)", name, e)
		}
	}
}

// promtool finds Prometheus's rule checker.
func promtool(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is not installed: `make test` installs Debian's prometheus package, which ships it")
	}
	return path
}

func TestPromtoolCheckRules(t *testing.T) {
	out, err := exec.Command(promtool(t), "check", "rules", "prometheus/modelplane-alerts.yaml").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "SUCCESS")
}

// The collector's own alert rules pass promtool's checks and its unit tests (each alert fires
// on a failing collector's series and not on a healthy one's), and every otelcol_* metric they
// use is one the collector documents.
func TestCollectorAlertRules(t *testing.T) {
	out, err := exec.Command(promtool(t), "check", "rules", "prometheus/otelcol-modelplane-alerts.yaml").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "SUCCESS: 9 rules found")
	test := exec.Command(promtool(t), "test", "rules", "otelcol-modelplane-alerts.test.yaml")
	test.Dir = "prometheus"
	out, err = test.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "SUCCESS")

	exprs := ruleExprsOf(t, "prometheus/otelcol-modelplane-alerts.yaml")
	require.Len(t, exprs, 9)
	useCollectorMetrics(t, exprs)
}

// The collector dashboard's expressions parse and use only metrics the collector documents.
func TestCollectorDashboard(t *testing.T) {
	exprs := dashboardExprsOf(t, "grafana/otelcol-modelplane-collector.json")
	require.Len(t, exprs, 16)
	useCollectorMetrics(t, exprs)
}

// useCollectorMetrics checks that every expression selects metrics, each one the collector
// documents: the standard receiver, exporter and process metrics from the collector's
// helpers and service, and this distribution's components' own.
func useCollectorMetrics(t *testing.T, exprs []string) {
	t.Helper()
	docs := []string{"../receiver/dcgmreceiver/documentation.md", "../processor/modelplanemapping/documentation.md"}
	for _, mod := range []string{"go.opentelemetry.io/collector/receiver/receiverhelper", "go.opentelemetry.io/collector/exporter/exporterhelper", "go.opentelemetry.io/collector/service"} {
		dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
		require.NoError(t, err, "go list -m %s", mod)
		docs = append(docs, filepath.Join(strings.TrimSpace(string(dir)), "documentation.md"))
	}
	documented := map[string]bool{}
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "### "); ok {
				documented[name] = true
			}
		}
	}
	for _, e := range exprs {
		names := metricsIn(t, e)
		require.NotEmpty(t, names, e)
		for _, name := range names {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			assert.True(t, documented[base], "%s is not a metric the collector documents (in %s)", name, e)
		}
	}
}
