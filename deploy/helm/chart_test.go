// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package helm tests the otelcol-modelplane chart with Helm's own Go library: it renders
// every example under examples/<name>/values.yaml, compares the output with the committed
// examples/<name>/rendered/, decodes every object strictly into Kubernetes API types, lints
// the chart, and runs `otelcol-modelplane validate` on every rendered collector config.
package helm

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"
)

var update = flag.Bool("update", false, "rewrite examples/<name>/rendered")

const chartDir = "otelcol-modelplane"

func render(t *testing.T, values chartutil.Values) (map[string]string, error) {
	t.Helper()
	ch, err := loader.Load(chartDir)
	require.NoError(t, err)
	return renderChart(ch, values)
}

// renderValues renders the chart with values written as YAML.
func renderValues(t *testing.T, values string) (map[string]string, error) {
	t.Helper()
	v, err := chartutil.ReadValues([]byte(values))
	require.NoError(t, err)
	return render(t, v)
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
		case "Service":
			obj = &corev1.Service{}
		case "PodMonitor":
			obj = &podMonitor{}
		case "ServiceMonitor":
			obj = &serviceMonitor{}
		case "PrometheusRule":
			obj = &prometheusRule{}
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
	bin := collectorBinaryFor(t, "collector config not validated")
	res, cfg, err := runValidate(t, bin, out, nil)
	assert.NoError(t, err, "otelcol-modelplane validate:\n%s\n%s", res, cfg)
	assert.NotContains(t, res, "in no pipeline", "every exporter the chart renders is in its pipeline")
	assert.NotContains(t, res, "warning:", "validate warns of nothing the chart renders")
}

// collectorConfigOf is the collector config the chart renders into its ConfigMap.
func collectorConfigOf(t *testing.T, out map[string]string) string {
	return configMapFile(t, out, "config.yaml")
}

// configMapFile is one file of the collector's ConfigMap ("" when it is not there).
func configMapFile(t *testing.T, out map[string]string, key string) string {
	t.Helper()
	var cm corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/configmap.yaml"]), &cm))
	return cm.Data[key]
}

// collectorBinary is the collector `make test` builds; the test is skipped without it.
func collectorBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN not set (make test sets it)")
	}
	return bin
}

// collectorBinaryFor is the collector `make test` builds; without it the test is skipped, saying
// what it did not check (what ran before the call has passed).
func collectorBinaryFor(t *testing.T, what string) string {
	t.Helper()
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Skipf("OTELCOL_MODELPLANE_BIN is unset, so %s is not checked (make test sets it)", what)
	}
	return bin
}

// runValidate runs `otelcol-modelplane validate` on the rendered config (and the overrides of
// the `config` value, as the DaemonSet passes them) and returns its output, the config and
// its error. mounted (may be nil) holds the files of mounted mapping ConfigMaps,
// by path below the mappings folder ("team/cluster.json").
func runValidate(t *testing.T, bin string, out, mounted map[string]string) (string, string, error) {
	t.Helper()
	dir := t.TempDir()
	cfg := collectorConfigOf(t, out)
	cfg = strings.ReplaceAll(cfg, "/etc/otelcol-modelplane/mappings", filepath.Join(dir, "mappings"))
	if m := out[chartDir+"/templates/mappings.yaml"]; strings.TrimSpace(m) != "" {
		var mcm corev1.ConfigMap
		require.NoError(t, yaml.UnmarshalStrict([]byte(m), &mcm))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "mappings", "chart"), 0o755))
		for k, v := range mcm.Data {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "mappings", "chart", k), []byte(v), 0o644))
		}
	}
	for name, data := range mounted {
		file := filepath.Join(dir, "mappings", name)
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, []byte(data), 0o644))
	}
	path := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	args := []string{"validate", "--config=" + path}
	if overrides := configMapFile(t, out, "overrides.yaml"); overrides != "" {
		overrides = strings.ReplaceAll(overrides, "/etc/otelcol-modelplane/mappings", filepath.Join(dir, "mappings"))
		path := filepath.Join(dir, "overrides.yaml")
		require.NoError(t, os.WriteFile(path, []byte(overrides), 0o644))
		args = append(args, "--config="+path)
		cfg += "\n# overrides.yaml\n" + overrides
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "NODE_NAME=node-1")
	res, err := cmd.CombinedOutput()
	return string(res), cfg, err
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

// values.schema.json and the templates reject unknown keys, wrong types and clashing ports
// with a message naming them.
func TestSchemaRejectsBadValues(t *testing.T) {
	cases := map[string]string{
		"clusterNmae: x\n":                                        "clusterNmae",
		"dcgm: {enabled: yes-please}\n":                           "at '/dcgm/enabled': got string, want boolean",
		"sinks: [{name: Mimir, type: prometheus_remote_write}]\n": "at '/sinks/0/name': 'Mimir' does not match pattern",
		"sinks: [{name: m, type: kafka}]\n":                       "at '/sinks/0/type': value must be one of",
		"sinks: [{name: m, type: otlp_http, endpoint: https://a.example.com}, {name: m, type: otlp, endpoint: b.example.com:4317}]\n": `sinks[1].name: "m" is already sinks[0].name; every sink needs its own name`,
		"scrape: {interval: 15}\n":          "at '/scrape/interval': got number, want string",
		"selfTelemetry: {port: 13133}\n":    "selfTelemetry.port: 13133 is already healthCheck.port",
		"selfTelemetry: {level: verbose}\n": "at '/selfTelemetry/level': value must be one of",
		"mappings: [{apiVersion: v1, kind: MetricMapping, metadata: {name: x}, spec: {metrics: [{}]}}]\n": "at '/mappings/0/apiVersion': value must be 'modelplane.ai/v1alpha1'",
		// Two ConfigMaps in one folder: the API server would refuse the DaemonSet.
		"mappingConfigMaps: [team, team]\n":           `mappingConfigMaps[1]: "team" is already mounted, by mappingConfigMaps[0]`,
		chartMapping + "mappingConfigMaps: [chart]\n": `mappingConfigMaps[0]: "chart" is already mounted, by mappings`,
		"mappingConfigMaps: [Team]\n":                 "at '/mappingConfigMaps/0': 'Team' does not match pattern",
		"builtinMappings: [nim]\n":                    "at '/builtinMappings/0': 'nim' does not match pattern",
		"builtinMappings: true\n":                     "at '/builtinMappings': got boolean, want array",
	}
	for values, want := range cases {
		_, err := renderValues(t, values)
		require.Error(t, err, values)
		assert.Contains(t, err.Error(), want, values)
	}
}

// builtinMappings: `default` in the list stands for the mappings on by default, so NIM's
// off-by-default mapping is added to them; the collector accepts what the chart renders.
func TestBuiltinMappingsAddNIM(t *testing.T) {
	out, err := renderValues(t, "builtinMappings: [default, modelplane-nim]\n")
	require.NoError(t, err)
	assert.Equal(t, []any{"default", "modelplane-nim"}, dig(renderedConfig(t, out), "processors", "modelplane_mapping", "builtin"))
	validateCollectorConfig(t, out)
}

// chartMapping is a `mappings` value with one valid MetricMapping.
const chartMapping = "mappings: [{apiVersion: modelplane.ai/v1alpha1, kind: MetricMapping, metadata: {name: x}, spec: {metrics: [{from: a, to: modelplane_a}]}}]\n"

// Every name the API server wants a DNS label in is one, and no two mounts share a path,
// whatever the names of the ConfigMaps and sinks (a ConfigMap's name may hold dots and run to
// 253 characters; a sink's is a label of up to 63, one more than "sink-" leaves room for).
func TestVolumesTheAPIServerTakes(t *testing.T) {
	long := strings.Repeat("m", 63)
	values := []string{""}
	for _, dir := range examples(t) {
		data, err := os.ReadFile(dir)
		require.NoError(t, err)
		values = append(values, string(data))
	}
	values = append(values, chartMapping+"mappingConfigMaps: [team.mappings.v2, "+strings.Repeat("c", 200)+"]\n"+
		"sinks: [{name: "+long+", type: otlp_http, endpoint: https://otlp.example.com, secretRef: {name: s}, auth: {bearerTokenKey: token}}]\n")
	for _, v := range values {
		out, err := renderValues(t, v)
		require.NoError(t, err, v)
		pod := daemonSetOf(t, out).Spec.Template.Spec
		volumes := map[string]bool{}
		for _, vol := range pod.Volumes {
			assert.Empty(t, validation.IsDNS1123Label(vol.Name), "volume %q", vol.Name)
			assert.False(t, volumes[vol.Name], "volume %q twice", vol.Name)
			volumes[vol.Name] = true
		}
		paths := map[string]bool{}
		for _, m := range pod.Containers[0].VolumeMounts {
			assert.True(t, volumes[m.Name], "mount of no volume: %s", m.Name)
			assert.False(t, paths[m.MountPath], "two mounts at %s", m.MountPath)
			paths[m.MountPath] = true
		}
	}
	out, err := renderValues(t, values[len(values)-1])
	require.NoError(t, err)
	mounts := map[string]string{}
	for _, m := range daemonSetOf(t, out).Spec.Template.Spec.Containers[0].VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	assert.Equal(t, "mappings-0", mounts["/etc/otelcol-modelplane/mappings/team.mappings.v2"])
	assert.Equal(t, "sink-0", mounts["/etc/modelplane/telemetry/"+long])
	validateCollectorConfig(t, out)
}

// Sinks copied from a Modelplane TelemetryDestination, which spells the OTLP exporters
// otlphttp and otlp, render under the collector's current names with the chart's delivery
// defaults, and the collector accepts the result.
func TestTelemetryDestinationSinkTypes(t *testing.T) {
	out, err := renderValues(t, `sinks:
- name: vendor
  type: otlphttp
  endpoint: https://otlp.example.com
- name: grpc
  type: otlp
  endpoint: otlp.example.com:4317
  config: {tls: {insecure: true}}
`)
	require.NoError(t, err)
	var cfg struct {
		Exporters map[string]map[string]any `json:"exporters"`
		Service   struct {
			Pipelines map[string]struct {
				Exporters []string `json:"exporters"`
			} `json:"pipelines"`
		} `json:"service"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &cfg))
	assert.ElementsMatch(t, []string{"otlp_http/vendor", "otlp_grpc/grpc"}, slices.Collect(maps.Keys(cfg.Exporters)))
	assert.Equal(t, []string{"otlp_http/vendor", "otlp_grpc/grpc"}, cfg.Service.Pipelines["metrics"].Exporters)
	for id, want := range map[string]string{"otlp_http/vendor": "https://otlp.example.com", "otlp_grpc/grpc": "otlp.example.com:4317"} {
		exp := cfg.Exporters[id]
		assert.Equal(t, want, exp["endpoint"], id)
		assert.Contains(t, exp, "retry_on_failure", id)
		assert.Contains(t, exp, "sending_queue", id)
	}
	assert.Equal(t, map[string]any{"insecure": true}, cfg.Exporters["otlp_grpc/grpc"]["tls"])
	validateCollectorConfig(t, out)
}

// A remote-write sink queues on disk as the OTLP sinks do (the exporter's sending_queue on the
// chart's file_storage), and in contrib's in-memory queue with delivery.persistentQueue off;
// the collector accepts both.
func TestRemoteWriteSinkQueue(t *testing.T) {
	for _, persistent := range []bool{true, false} {
		t.Run(fmt.Sprint(persistent), func(t *testing.T) {
			out, err := renderValues(t, fmt.Sprintf(`delivery: {persistentQueue: %v}
sinks:
- name: mimir
  type: prometheus_remote_write
  endpoint: https://mimir.example.com/api/v1/push
`, persistent))
			require.NoError(t, err)
			exp := exportersOf(t, out)["prometheus_remote_write/mimir"]
			if persistent {
				assert.Equal(t, map[string]any{"enabled": true, "storage": "file_storage", "sizer": "bytes", "queue_size": float64(512 << 20)}, exp["sending_queue"])
				assert.NotContains(t, exp, "remote_write_queue")
			} else {
				assert.Equal(t, map[string]any{"queue_size": float64(10000)}, exp["remote_write_queue"])
				assert.NotContains(t, exp, "sending_queue")
			}
			validateCollectorConfig(t, out)
		})
	}
}

// The queues on disk are bounded in bytes, sharing delivery.persistentQueueMiB evenly, and the
// emptyDir they live on is twice that and 32 MiB more per queue file: a long outage fills the
// queues (whose refusals are counted and alerted on) before their files outgrow the volume,
// which the kubelet would answer by evicting the pod, backlog and all.
func TestDiskQueuesFitTheirVolume(t *testing.T) {
	out, err := renderValues(t, `delivery: {persistentQueueMiB: 300}
sinks:
- name: mimir
  type: prometheus_remote_write
  endpoint: https://mimir.example.com/api/v1/push
- name: vendor
  type: otlp_http
  endpoint: https://otlp.example.com
- name: grpc
  type: otlp
  endpoint: otlp.example.com:4317
- name: look
  type: debug
`)
	require.NoError(t, err)
	exporters := exportersOf(t, out)
	for _, id := range []string{"prometheus_remote_write/mimir", "otlp_http/vendor", "otlp_grpc/grpc"} {
		q, _ := exporters[id]["sending_queue"].(map[string]any)
		assert.Equal(t, "bytes", q["sizer"], id)
		assert.Equal(t, float64(100<<20), q["queue_size"], "%s: a third of 300 MiB", id)
	}
	var volume string
	for _, v := range daemonSetOf(t, out).Spec.Template.Spec.Volumes {
		if v.Name == "queue" {
			volume = v.EmptyDir.SizeLimit.String()
		}
	}
	assert.Equal(t, "696Mi", volume, "600 MiB and 32 MiB for each of the three queues")
	validateCollectorConfig(t, out)
}

// exportersOf is the exporters section of the collector config the chart renders.
func exportersOf(t *testing.T, out map[string]string) map[string]map[string]any {
	t.Helper()
	var cfg struct {
		Exporters map[string]map[string]any `json:"exporters"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &cfg))
	return cfg.Exporters
}

// A misspelt key in a sink's config, which the chart passes to the exporter as written,
// fails `validate` naming the exporter and the key.
func TestSinkConfigTypoFailsValidation(t *testing.T) {
	bin := collectorBinary(t)
	for _, tc := range []struct{ sink, exporter, key string }{
		{"- name: vendor\n  type: otlphttp\n  endpoint: https://otlp.example.com\n  config: {compresion: zstd}\n", "otlp_http/vendor", "compresion"},
		{"- name: mimir\n  type: prometheus_remote_write\n  endpoint: https://mimir.example.com/api/v1/push\n  config: {timout: 30s}\n", "prometheus_remote_write/mimir", "timout"},
	} {
		out, err := renderValues(t, "sinks:\n"+tc.sink)
		require.NoError(t, err)
		res, _, err := runValidate(t, bin, out, nil)
		require.Error(t, err)
		assert.Contains(t, res, `error reading configuration for "`+tc.exporter+`"`)
		assert.Contains(t, res, "has invalid keys: "+tc.key)
	}
}

// A mapping ConfigMap is read whatever its keys end in, .yaml, .yml or .json (what
// `kubectl get metricmappings -o json` writes): validate reads each file and fails on the
// broken mapping in each, by file and name. Any other key is left alone.
func TestMappingConfigMapKeys(t *testing.T) {
	bin := collectorBinary(t)
	out, err := renderValues(t, "mappingConfigMaps: [team]\n")
	require.NoError(t, err)
	broken := func(name string) string {
		return "apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: " + name + "}\nspec:\n  metrics:\n  - {from: a, to: modelplane_a, fromUnit: Hours}\n"
	}
	res, _, err := runValidate(t, bin, out, map[string]string{
		"team/a.yaml":     broken("in-yaml"),
		"team/b.yml":      broken("in-yml"),
		"team/c.json":     `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "modelplane.ai/v1alpha1", "kind": "MetricMapping", "metadata": {"name": "in-json"}, "spec": {"metrics": [{"from": "a", "to": "modelplane_a", "fromUnit": "Hours"}]}}]}`,
		"team/README.txt": broken("in-txt"),
	})
	require.Error(t, err)
	for _, want := range []string{`team/a.yaml: MetricMapping "in-yaml"`, `team/b.yml: MetricMapping "in-yml"`, `team/c.json: MetricMapping "in-json"`} {
		assert.Contains(t, res, want)
	}
	assert.NotContains(t, res, "in-txt")
}

// clusterMappings: the processor reads MetricMapping objects with the pod's service account,
// which may get, list and watch them and nothing more; off, neither is there. The rendered
// config validates.
func TestClusterMappingsValue(t *testing.T) {
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint(on), func(t *testing.T) {
			out, err := renderValues(t, fmt.Sprintf("clusterMappings: %v\n", on))
			require.NoError(t, err)
			var cfg struct {
				Processors map[string]map[string]any `json:"processors"`
			}
			require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &cfg))
			got, has := cfg.Processors["modelplane_mapping"]["cluster_mappings"]
			rbac := out[chartDir+"/templates/rbac.yaml"]
			rule := "  - apiGroups: [modelplane.ai]\n    resources: [metricmappings]\n    verbs: [get, list, watch]\n"
			if !on {
				assert.False(t, has)
				assert.NotContains(t, rbac, "metricmappings")
				return
			}
			assert.Equal(t, map[string]any{"enabled": true, "auth_type": "serviceAccount"}, got)
			assert.Contains(t, rbac, rule)
			assert.Equal(t, 1, strings.Count(rbac, "metricmappings"))
			validateCollectorConfig(t, out)
		})
	}
}

// renderProduction renders examples/production and decodes its DaemonSet.
func renderProduction(t *testing.T) (map[string]string, appsv1.DaemonSet) {
	t.Helper()
	values, err := chartutil.ReadValuesFile("examples/production/values.yaml")
	require.NoError(t, err)
	out, err := render(t, values)
	require.NoError(t, err)
	return out, daemonSetOf(t, out)
}

// The rendered DaemonSet: GOMEMLIMIT from the memory limit, probes on health_check, the
// token Secret mounted where bearertokenauth reads it.
func TestDaemonSetDetails(t *testing.T) {
	out, ds := renderProduction(t)
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
	// Volumes are named by position (TestVolumesTheAPIServerTakes), folders by name.
	assert.Equal(t, "/etc/modelplane/telemetry/mimir", mounts["sink-0"])
	assert.Equal(t, "/etc/modelplane/telemetry/vendor", mounts["sink-1"])
	assert.Equal(t, "/etc/otelcol-modelplane/mappings/team-mappings", mounts["mappings-0"])
	cfg := out[chartDir+"/templates/configmap.yaml"]
	assert.Contains(t, cfg, "filename: /etc/modelplane/telemetry/mimir/token")
	assert.Contains(t, cfg, "authenticator: bearertokenauth/mimir")
	assert.Contains(t, cfg, "X-Scope-OrgID: inference")
	assert.True(t, bytes.Contains([]byte(cfg), []byte("- '*'")) || strings.Contains(cfg, `- "*"`), "identity labels on for remote write")
}

// podMonitor is the part of prometheus-operator's monitoring.coreos.com/v1 PodMonitor that the
// chart writes, field names as in its API; its Go module needs a newer Kubernetes API than the
// collector's, so the test decodes into this instead.
type podMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector            metav1.LabelSelector `json:"selector"`
		PodMetricsEndpoints []struct {
			Port     string `json:"port"`
			Path     string `json:"path"`
			Interval string `json:"interval"`
		} `json:"podMetricsEndpoints"`
	} `json:"spec"`
}

// serviceMonitor is the part of prometheus-operator's monitoring.coreos.com/v1 ServiceMonitor
// that the chart writes, decoded for the same reason as podMonitor.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port        string `json:"port"`
			Path        string `json:"path"`
			Interval    string `json:"interval"`
			HonorLabels bool   `json:"honorLabels"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// prometheusRule is the part of prometheus-operator's monitoring.coreos.com/v1 PrometheusRule
// that the chart writes, decoded for the same reason as podMonitor.
type prometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ruleFile `json:"spec"`
}

// ruleFile is a Prometheus rule file, as promtool reads it and a PrometheusRule's spec holds it.
type ruleFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for,omitempty"`
			Labels      map[string]string `json:"labels,omitempty"`
			Annotations map[string]string `json:"annotations,omitempty"`
		} `json:"rules"`
	} `json:"groups"`
}

// The collector's own metrics are served on the pod IP, on a named container port, and the
// optional PodMonitor selects these pods on that port; turned off, nothing listens.
func TestSelfTelemetry(t *testing.T) {
	out, ds := renderProduction(t)
	c := ds.Spec.Template.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	assert.Equal(t, int32(8888), ports["telemetry"])
	var podIP string
	for _, e := range c.Env {
		if e.Name == "POD_IP" {
			podIP = e.ValueFrom.FieldRef.FieldPath
		}
	}
	assert.Equal(t, "status.podIP", podIP)

	var cfg struct {
		Service struct {
			Telemetry struct {
				Metrics struct {
					Level   string `json:"level"`
					Readers []struct {
						Pull struct {
							Exporter struct {
								Prometheus struct {
									Host string `json:"host"`
									Port int    `json:"port"`
								} `json:"prometheus"`
							} `json:"exporter"`
						} `json:"pull"`
					} `json:"readers"`
				} `json:"metrics"`
			} `json:"telemetry"`
		} `json:"service"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &cfg))
	m := cfg.Service.Telemetry.Metrics
	assert.Equal(t, "normal", m.Level)
	require.Len(t, m.Readers, 1)
	assert.Equal(t, "${env:POD_IP}", m.Readers[0].Pull.Exporter.Prometheus.Host)
	assert.Equal(t, 8888, m.Readers[0].Pull.Exporter.Prometheus.Port)

	var pm podMonitor
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/podmonitor.yaml"]), &pm))
	assert.Equal(t, "monitoring.coreos.com/v1", pm.APIVersion)
	assert.Equal(t, "kube-prometheus-stack", pm.Labels["release"])
	require.Len(t, pm.Spec.PodMetricsEndpoints, 1)
	assert.Equal(t, "telemetry", pm.Spec.PodMetricsEndpoints[0].Port)
	for k, v := range pm.Spec.Selector.MatchLabels {
		assert.Equal(t, v, ds.Spec.Template.Labels[k], "PodMonitor selects the DaemonSet's pods by %s", k)
	}
	assert.NotEmpty(t, pm.Spec.Selector.MatchLabels)

	// The PrometheusRule carries deploy/prometheus/otelcol-modelplane-alerts.yaml, which
	// promtool checks and unit-tests (deploy/dashboards_test.go); the chart's copy of it must
	// not drift.
	canonical, err := os.ReadFile("../prometheus/otelcol-modelplane-alerts.yaml")
	require.NoError(t, err)
	copied, err := os.ReadFile(chartDir + "/files/otelcol-modelplane-alerts.yaml")
	require.NoError(t, err)
	assert.Equal(t, string(canonical), string(copied), "cp deploy/prometheus/otelcol-modelplane-alerts.yaml %s/files/", chartDir)
	var rule prometheusRule
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/prometheusrule.yaml"]), &rule))
	var want ruleFile
	require.NoError(t, yaml.UnmarshalStrict(canonical, &want))
	assert.Equal(t, want, rule.Spec)
	assert.Equal(t, "kube-prometheus-stack", rule.Labels["release"])

	serveSelfTelemetry(t)

	// Off: no listener, no port, no PodMonitor or rules even if asked for.
	out, err = renderValues(t, "selfTelemetry: {enabled: false, podMonitor: {enabled: true}, prometheusRule: {enabled: true}}\n")
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(out[chartDir+"/templates/podmonitor.yaml"]))
	assert.Empty(t, strings.TrimSpace(out[chartDir+"/templates/prometheusrule.yaml"]))
	assert.NotContains(t, out[chartDir+"/templates/daemonset.yaml"], "telemetry")
	assert.NotContains(t, out[chartDir+"/templates/daemonset.yaml"], "POD_IP")
	assert.Contains(t, out[chartDir+"/templates/configmap.yaml"], "level: none")
	validateCollectorConfig(t, out)
}

// serveSelfTelemetry starts the collector with the chart's service::telemetry (its pipeline
// reduced to the dcgm receiver, which runs without a GPU or cluster) and reads the collector's
// own metrics where a PodMonitor would: the pod IP, here 127.0.0.1, on the chart's port.
func serveSelfTelemetry(t *testing.T) {
	bin := collectorBinaryFor(t, "self-telemetry not served")
	port := freeport.Port(t)
	out, err := renderValues(t, fmt.Sprintf("selfTelemetry: {port: %d}\n", port))
	require.NoError(t, err)
	var rendered struct {
		Service struct {
			Telemetry any `json:"telemetry"`
		} `json:"service"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &rendered))
	startRenderedCollector(t, bin, map[string]any{
		"receivers": map[string]any{"dcgm": map[string]any{"collection_interval": "1s", "pod_resources_socket": "/nonexistent"}},
		"exporters": map[string]any{"debug": map[string]any{}},
		"service": map[string]any{
			"telemetry": rendered.Service.Telemetry,
			"pipelines": map[string]any{"metrics": map[string]any{"receivers": []string{"dcgm"}, "exporters": []string{"debug"}}},
		},
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	var page string
	require.Eventually(t, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		page = string(b)
		return err == nil && strings.Contains(page, "otelcol_receiver_dcgm_collection_duration_count{")
	}, 30*time.Second, 100*time.Millisecond, "the collector's own metrics at %s", url)
	// No GPU on this machine: the receiver reports none, which is what an alert would watch.
	assert.Contains(t, page, `otelcol_receiver_dcgm_gpus{receiver="dcgm"} 0`)
}

// startRenderedCollector runs the collector on cfg, parts of the chart's rendered config, and
// then the config files named in more, with the environment the DaemonSet gives it (the pod
// IP here 127.0.0.1), until the test ends.
func startRenderedCollector(t *testing.T, bin string, cfg map[string]any, more ...string) {
	t.Helper()
	startRenderedCollectorOn(t, bin, "127.0.0.1", cfg, more...)
}

// startRenderedCollectorOn is startRenderedCollector with podIP as the pod's IP.
func startRenderedCollectorOn(t *testing.T, bin, podIP string, cfg map[string]any, more ...string) {
	t.Helper()
	runCollector(t, cfg, func(config string) *exec.Cmd {
		args := []string{"--config=" + config}
		for _, m := range more {
			args = append(args, "--config="+m)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "POD_IP="+podIP, "NODE_NAME=node-1")
		return cmd
	})
}

// runCollector writes cfg to a file, starts the command command(file) returns, and stops it
// with SIGINT when the test ends, logging its output if the test failed. It returns the
// output so far, which grows as the collector runs.
func runCollector(t *testing.T, cfg map[string]any, command func(config string) *exec.Cmd) *syncbuffer.Buffer {
	t.Helper()
	data, err := yaml.Marshal(cfg)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	log := new(syncbuffer.Buffer)
	cmd := command(path)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("collector output:\n%s", log.String())
		}
	})
	return log
}

// The dashboards ConfigMap carries deploy/grafana's dashboards as they are, under the label a
// Grafana sidecar looks for; the chart's copies must not drift.
func TestGrafanaDashboards(t *testing.T) {
	out, _ := renderProduction(t)
	var cm corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/dashboards.yaml"]), &cm))
	assert.Equal(t, "1", cm.Labels["grafana_dashboard"])
	require.Len(t, cm.Data, 2)
	for key, body := range cm.Data {
		canonical, err := os.ReadFile(filepath.Join("../grafana", key))
		require.NoError(t, err)
		assert.Equal(t, string(canonical), body, key)
		copied, err := os.ReadFile(filepath.Join(chartDir, "files", key))
		require.NoError(t, err)
		assert.Equal(t, string(canonical), string(copied), "cp deploy/grafana/%s %s/files/", key, chartDir)
	}

	// Off by default; without selfTelemetry, only the fleet's dashboard.
	out, err := render(t, chartutil.Values{})
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(out[chartDir+"/templates/dashboards.yaml"]))
	out, err = renderValues(t, "grafanaDashboards: {enabled: true}\nselfTelemetry: {enabled: false}\n")
	require.NoError(t, err)
	var fleetOnly corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/dashboards.yaml"]), &fleetOnly))
	assert.Len(t, fleetOnly.Data, 1)
	assert.Contains(t, fleetOnly.Data, "modelplane-fleet.json")
}

// A sink's token Secret without the key that auth.bearerTokenKey names: the kubelet mounts
// the Secret's other keys and the pod starts, and the collector sent every batch without a
// token (401 at the backend, for as long as nobody read its log) while the rollout went on
// node by node. Now the collector fails to start, naming the file; with the key, it runs.
func TestMissingTokenKeyFailsTheStart(t *testing.T) {
	bin := collectorBinaryFor(t, "the missing token key not run")
	out, err := renderValues(t, "sinks: [{name: mimir, type: prometheus_remote_write, endpoint: http://127.0.0.1:1/api/v1/write, secretRef: {name: mimir-token}, auth: {bearerTokenKey: token}}]\n")
	require.NoError(t, err)
	rendered := renderedConfig(t, out)
	ext, ok := dig(rendered, "extensions", "bearertokenauth/mimir").(map[string]any)
	require.True(t, ok, "the rendered bearertokenauth/mimir")
	require.Equal(t, "/etc/modelplane/telemetry/mimir/token", ext["filename"])

	// The Secret's mount, holding another key only.
	mount := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mount, "password"), []byte("x"), 0o600))
	ext["filename"] = filepath.Join(mount, "token")
	cfg := map[string]any{
		"receivers": map[string]any{"otlp": map[string]any{"protocols": map[string]any{"http": map[string]any{"endpoint": freeport.Addr(t)}}}},
		"exporters": map[string]any{"prometheus_remote_write/mimir": dig(rendered, "exporters", "prometheus_remote_write/mimir")},
		// The sink's sending queue is on the chart's file_storage.
		"extensions": map[string]any{"bearertokenauth/mimir": ext, "file_storage": map[string]any{"directory": t.TempDir()}},
		"service": map[string]any{
			"telemetry":  map[string]any{"metrics": map[string]any{"level": "none"}},
			"extensions": []string{"bearertokenauth/mimir", "file_storage"},
			"pipelines":  map[string]any{"metrics": map[string]any{"receivers": []string{"otlp"}, "exporters": []string{"prometheus_remote_write/mimir"}}},
		},
	}
	data, err := yaml.Marshal(cfg)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	failed, err := exec.CommandContext(ctx, bin, "--config="+path).CombinedOutput()
	require.Error(t, err, "the collector must not run without its token")
	assert.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.Contains(t, string(failed), `failed to read credentials file "`+filepath.Join(mount, "token")+`"`)

	require.NoError(t, os.WriteFile(filepath.Join(mount, "token"), []byte("secret-1"), 0o600))
	log := runCollector(t, cfg, func(config string) *exec.Cmd { return exec.Command(bin, "--config="+config) })
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "Everything is ready") }, 30*time.Second, 100*time.Millisecond)
}

// A sink's endpoint is checked at install, naming the sink, where every node's collector
// would otherwise fail its start or send nowhere: remote write and OTLP sinks need one (in
// `endpoint` or in `config`), and for remote write and OTLP/HTTP it must be an http(s) URL,
// not host:port/path as a Prometheus user writes a target, which those exporters take and
// then drop every batch. OTLP/gRPC's host:port is its form.
func TestSinkEndpoints(t *testing.T) {
	refused := map[string][]string{
		"{name: backend, type: prometheus_remote_write}": {`sinks[0].endpoint: "backend" (prometheus_remote_write) has none; give the backend's URL, such as https://mimir.example.com/api/v1/push`},
		"{name: backend, type: otlphttp}":                {`sinks[0].endpoint: "backend" (otlphttp) has none; give the backend's URL, such as https://otlp.example.com:4318`},
		"{name: backend, type: otlp}":                    {`sinks[0].endpoint: "backend" (otlp) has none; give the backend's URL, such as otlp.example.com:4317`},
	}
	// A token over plaintext gRPC: bearertokenauth stops the exporter's start.
	const plaintextToken = `sends its token only over TLS, but its endpoint %q is plaintext (http://, or config.tls.insecure): write https:// for a receiver that serves TLS, or leave auth out`
	refused["{name: gw, type: otlp_grpc, endpoint: \"http://gateway:4317\", secretRef: {name: t}, auth: {bearerTokenKey: token}}"] = []string{`sinks[0].auth: "gw" (otlp_grpc) ` + fmt.Sprintf(plaintextToken, "http://gateway:4317")}
	refused["{name: gw, type: otlp, endpoint: \"gateway:4317\", secretRef: {name: t}, auth: {bearerTokenKey: token}, config: {tls: {insecure: true}}}"] = []string{`sinks[0].auth: "gw" (otlp) ` + fmt.Sprintf(plaintextToken, "gateway:4317")}
	// Remote write at the root, where Prometheus answers 405 and the exporter drops the batch.
	refused["{name: prom, type: prometheus_remote_write, endpoint: \"http://prometheus.monitoring:9090\"}"] = []string{`sinks[0].endpoint: "prom" (prometheus_remote_write) has no path: remote write goes to the receiver's, such as http://prometheus.monitoring:9090/api/v1/write (Prometheus, VictoriaMetrics) or /api/v1/push (Mimir)`}
	// The metrics URL a vendor's page gives, which the OTLP/HTTP exporter appends /v1/metrics to.
	refused["{name: vendor, type: otlphttp, endpoint: \"https://otlp.example.com/v1/metrics\"}"] = []string{`sinks[0].endpoint: "vendor" (otlphttp) ends in a signal's path, and the exporter appends /v1/metrics itself (it would post to https://otlp.example.com/v1/metrics/v1/metrics): give the URL before /v1/, or the whole URL as config.metrics_endpoint`}
	// The resource conversion turned off with nothing in its place: replicas merge, and the
	// collector refuses it at start on every node.
	const noIdentity = `sinks[0].config.resource_to_telemetry_conversion: "mimir" (prometheus_remote_write) turns the conversion off and sets no resource_constant_labels, so the series would carry no cluster, node, replica or engine label and two replicas' series would arrive as one: leave both out (the chart then sets resource_constant_labels: {included: ["*"]}), or set resource_constant_labels`
	refused["{name: mimir, type: prometheus_remote_write, endpoint: \"https://mimir.example.com/api/v1/push\", config: {resource_to_telemetry_conversion: {enabled: false}}}"] = []string{noIdentity}
	refused["{name: mimir, type: prometheus_remote_write, endpoint: \"https://mimir.example.com/api/v1/push\", config: {resource_to_telemetry_conversion: {}}}"] = []string{noIdentity}
	for _, typ := range []string{"prometheus_remote_write", "otlp_http", "otlphttp"} {
		refused["{name: backend, type: "+typ+", endpoint: \"prometheus:9090/api/v1/write\"}"] = []string{"/sinks/0/endpoint", "prometheus:9090/api/v1/write"}
	}
	for sink, want := range refused {
		_, err := renderValues(t, "sinks:\n- "+sink+"\n")
		require.Error(t, err, sink)
		for _, w := range want {
			assert.Contains(t, err.Error(), w, sink)
		}
	}
	for _, sink := range []string{
		"{name: a, type: prometheus_remote_write, endpoint: \"https://mimir.example.com/api/v1/push\"}",
		"{name: a, type: otlp_http, endpoint: \"HTTP://[::1]:4318\"}",
		"{name: a, type: otlp_grpc, endpoint: \"collector:4317\"}",
		"{name: a, type: otlp_grpc, endpoint: \"https://collector:4317\", secretRef: {name: t}, auth: {bearerTokenKey: token}}",
		"{name: a, type: prometheus_remote_write, config: {endpoint: \"https://mimir.example.com/api/v1/push\"}}",
		"{name: a, type: prometheus_remote_write, endpoint: \"https://mimir.example.com/api/v1/push\", config: {resource_to_telemetry_conversion: {enabled: true}}}",
		"{name: a, type: prometheus_remote_write, endpoint: \"https://mimir.example.com/api/v1/push\", config: {resource_to_telemetry_conversion: {enabled: false}, resource_constant_labels: {included: [\"*\"]}}}",
		"{name: a, type: otlp_http, config: {metrics_endpoint: \"https://otlp.example.com/v1/metrics\"}}",
		"{name: a, type: otlp_http, endpoint: \"https://otlp-gateway.example.net/otlp\"}",
		"{name: a, type: debug}",
	} {
		_, err := renderValues(t, "sinks:\n- "+sink+"\n")
		assert.NoError(t, err, sink)
	}
}

// GOMEMLIMIT is 80% of the memory limit however Kubernetes lets it be written; a form the
// chart cannot read leaves it unset.
func TestGOMEMLIMIT(t *testing.T) {
	for limit, want := range map[string]string{
		"1Gi": "819MiB", "512Mi": "409MiB", "1.5Gi": "1228MiB", "768M": "585MiB", "2G": "1525MiB",
		"536870912": "409MiB", "524288Ki": "409MiB", "5e8": "",
	} {
		out, err := renderValues(t, "resources: {limits: {memory: \""+limit+"\"}}\n")
		require.NoError(t, err, limit)
		got := ""
		for _, e := range daemonSetOf(t, out).Spec.Template.Spec.Containers[0].Env {
			if e.Name == "GOMEMLIMIT" {
				got = e.Value
			}
		}
		assert.Equal(t, want, got, limit)
	}
}

// The pod's grace period, and the exporters' time at a stop within it: 15 s less, at least
// half (internal/deliverywatch reads the variable; 15 s is also its default).
func TestExportersStopWithinTheGracePeriod(t *testing.T) {
	for grace, want := range map[string]string{"": "15s", "30": "15s", "120": "105s", "20": "10s", "2": "1s"} {
		values := ""
		if grace != "" {
			values = "terminationGracePeriodSeconds: " + grace + "\n"
		}
		out, err := renderValues(t, values)
		require.NoError(t, err, grace)
		spec := daemonSetOf(t, out).Spec.Template.Spec
		if grace == "" {
			grace = "30"
		}
		require.NotNil(t, spec.TerminationGracePeriodSeconds)
		assert.Equal(t, grace, fmt.Sprint(*spec.TerminationGracePeriodSeconds))
		got := ""
		for _, e := range spec.Containers[0].Env {
			if e.Name == deliverywatch.GiveUpEnv {
				got = e.Value
			}
		}
		assert.Equal(t, want, got, grace)
	}
	for _, bad := range []string{"1", "0", "\"30s\""} {
		_, err := renderValues(t, "terminationGracePeriodSeconds: "+bad+"\n")
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "terminationGracePeriodSeconds", bad)
	}
}
