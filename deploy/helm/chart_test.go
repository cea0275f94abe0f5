// Package helm tests the otelcol-modelplane chart with Helm's own Go library: it renders
// every example under examples/<name>/values.yaml, compares the output with the committed
// examples/<name>/rendered/, decodes every object strictly into Kubernetes API types, lints
// the chart, and runs `otelcol-modelplane validate` on every rendered collector config.
package helm

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite examples/<name>/rendered")

const chartDir = "otelcol-modelplane"

func render(t *testing.T, values chartutil.Values) (map[string]string, error) {
	t.Helper()
	ch, err := loader.Load(chartDir)
	require.NoError(t, err)
	return renderChart(ch, values)
}

func renderChart(ch *chart.Chart, values chartutil.Values) (map[string]string, error) {
	opts := chartutil.ReleaseOptions{Name: "omp", Namespace: "modelplane-system", Revision: 1, IsInstall: true}
	vals, err := chartutil.ToRenderValuesWithSchemaValidation(ch, values, opts, chartutil.DefaultCapabilities, false)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, vals)
}

func examples(t *testing.T) []string {
	dirs, err := filepath.Glob("examples/*/values.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	return dirs
}

func TestExamplesRender(t *testing.T) {
	for _, valuesFile := range examples(t) {
		dir := filepath.Dir(valuesFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			values, err := chartutil.ReadValuesFile(valuesFile)
			require.NoError(t, err)
			out, err := render(t, values)
			require.NoError(t, err)

			rendered := filepath.Join(dir, "rendered")
			if *update {
				require.NoError(t, os.RemoveAll(rendered))
			}
			var names []string
			for name, body := range out {
				if strings.TrimSpace(body) == "" || !strings.HasSuffix(name, ".yaml") {
					continue
				}
				file := filepath.Join(rendered, filepath.Base(name))
				names = append(names, filepath.Base(name))
				if *update {
					require.NoError(t, os.MkdirAll(rendered, 0o755))
					require.NoError(t, os.WriteFile(file, []byte(body), 0o644))
				}
				want, err := os.ReadFile(file)
				require.NoError(t, err, "run go test ./deploy/helm -update and commit the result")
				assert.Equal(t, string(want), body, "%s is stale: run go test ./deploy/helm -update", file)
				decodeStrictly(t, body)
			}
			committed, _ := filepath.Glob(filepath.Join(rendered, "*.yaml"))
			assert.Len(t, committed, len(names), "rendered/ holds files the chart no longer renders")
			validateCollectorConfig(t, out)
		})
	}
}

// decodeStrictly decodes every document into its Kubernetes type, failing on unknown fields.
func decodeStrictly(t *testing.T, body string) {
	t.Helper()
	for _, doc := range strings.Split(body, "\n---") {
		if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
			continue
		}
		var head struct {
			Kind string `json:"kind"`
		}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &head))
		var obj any
		switch head.Kind {
		case "DaemonSet":
			obj = &appsv1.DaemonSet{}
		case "ConfigMap":
			obj = &corev1.ConfigMap{}
		case "ServiceAccount":
			obj = &corev1.ServiceAccount{}
		case "ClusterRole":
			obj = &rbacv1.ClusterRole{}
		case "ClusterRoleBinding":
			obj = &rbacv1.ClusterRoleBinding{}
		default:
			t.Fatalf("unexpected kind %q", head.Kind)
		}
		require.NoError(t, yaml.UnmarshalStrict([]byte(doc), obj), head.Kind)
	}
}

// validateCollectorConfig runs `otelcol-modelplane validate` on the rendered collector config,
// with the rendered inline mappings as mapping files.
func validateCollectorConfig(t *testing.T, out map[string]string) {
	t.Helper()
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Log("OTELCOL_MODELPLANE_BIN not set: collector config not validated (make test sets it)")
		return
	}
	var cm corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/configmap.yaml"]), &cm))
	dir := t.TempDir()
	cfg := cm.Data["config.yaml"]
	cfg = strings.ReplaceAll(cfg, "/etc/otelcol-modelplane/mappings", filepath.Join(dir, "mappings"))
	if m := out[chartDir+"/templates/mappings.yaml"]; strings.TrimSpace(m) != "" {
		var mcm corev1.ConfigMap
		require.NoError(t, yaml.UnmarshalStrict([]byte(m), &mcm))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "mappings", "chart"), 0o755))
		for k, v := range mcm.Data {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "mappings", "chart", k), []byte(v), 0o644))
		}
	}
	path := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	cmd := exec.Command(bin, "validate", "--config="+path)
	cmd.Env = append(os.Environ(), "NODE_NAME=node-1")
	res, err := cmd.CombinedOutput()
	assert.NoError(t, err, "otelcol-modelplane validate:\n%s\n%s", res, cfg)
}

func TestLint(t *testing.T) {
	for _, valuesFile := range examples(t) {
		values, err := chartutil.ReadValuesFile(valuesFile)
		require.NoError(t, err)
		linter := lint.All(chartDir, values, "modelplane-system", false)
		var msgs []string
		for _, m := range linter.Messages {
			if m.Severity >= support.WarningSev {
				msgs = append(msgs, m.Error())
			}
		}
		sort.Strings(msgs)
		assert.Empty(t, msgs, valuesFile)
	}
}

// values.schema.json rejects unknown keys and wrong types with a message naming them.
func TestSchemaRejectsBadValues(t *testing.T) {
	cases := map[string]string{
		"clusterNmae: x\n":                                        "clusterNmae",
		"dcgm: {enabled: yes-please}\n":                           "at '/dcgm/enabled': got string, want boolean",
		"sinks: [{name: Mimir, type: prometheus_remote_write}]\n": "at '/sinks/0/name': 'Mimir' does not match pattern",
		"sinks: [{name: m, type: kafka}]\n":                       "at '/sinks/0/type': value must be one of",
		"scrape: {interval: 15}\n":                                "at '/scrape/interval': got number, want string",
		"mappings: [{apiVersion: v1, kind: MetricMapping, metadata: {name: x}, spec: {metrics: [{}]}}]\n": "at '/mappings/0/apiVersion': value must be 'modelplane.ai/v1alpha1'",
	}
	for values, want := range cases {
		v, err := chartutil.ReadValues([]byte(values))
		require.NoError(t, err)
		_, err = render(t, v)
		require.Error(t, err, values)
		assert.Contains(t, err.Error(), want, values)
	}
}

// The rendered DaemonSet: GOMEMLIMIT from the memory limit, probes on health_check, the
// token Secret mounted where bearertokenauth reads it.
func TestDaemonSetDetails(t *testing.T) {
	values, err := chartutil.ReadValuesFile("examples/production/values.yaml")
	require.NoError(t, err)
	out, err := render(t, values)
	require.NoError(t, err)
	var ds appsv1.DaemonSet
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/daemonset.yaml"]), &ds))
	c := ds.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	assert.Equal(t, "819MiB", env["GOMEMLIMIT"], "80% of 1Gi")
	assert.Equal(t, "health", c.LivenessProbe.HTTPGet.Port.StrVal)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	assert.Equal(t, "/etc/modelplane/telemetry/mimir", mounts["sink-mimir"])
	assert.Equal(t, "/etc/otelcol-modelplane/mappings/team-mappings", mounts["mappings-team-mappings"])
	cfg := out[chartDir+"/templates/configmap.yaml"]
	assert.Contains(t, cfg, "filename: /etc/modelplane/telemetry/mimir/token")
	assert.Contains(t, cfg, "authenticator: bearertokenauth/mimir")
	assert.Contains(t, cfg, "X-Scope-OrgID: inference")
	assert.True(t, bytes.Contains([]byte(cfg), []byte("- '*'")) || strings.Contains(cfg, `- "*"`), "identity labels on for remote write")
}
