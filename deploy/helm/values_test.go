// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package helm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// daemonSetOf is the rendered DaemonSet.
func daemonSetOf(t *testing.T, out map[string]string) appsv1.DaemonSet {
	t.Helper()
	var ds appsv1.DaemonSet
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/daemonset.yaml"]), &ds))
	return ds
}

// containerArgs are the collector container's arguments in the rendered DaemonSet.
func containerArgs(t *testing.T, out map[string]string) []string {
	t.Helper()
	return daemonSetOf(t, out).Spec.Template.Spec.Containers[0].Args
}

// The `config` value: collector configuration the collector merges over the chart's, as a
// second --config file.
func TestConfigOverrides(t *testing.T) {
	out, err := renderValues(t, "")
	require.NoError(t, err)
	assert.Empty(t, configMapFile(t, out, "overrides.yaml"), "nothing to merge, no file")
	assert.Equal(t, []string{"--config=/etc/otelcol-modelplane/config/config.yaml"}, containerArgs(t, out))

	out, err = renderValues(t, `config:
  processors:
    batch: {timeout: 2s}
  exporters:
    debug/extra: {verbosity: basic}
  service:
    pipelines:
      metrics:
        exporters: [debug/debug, debug/extra]
`)
	require.NoError(t, err)
	assert.Equal(t, []string{"--config=/etc/otelcol-modelplane/config/config.yaml", "--config=/etc/otelcol-modelplane/config/overrides.yaml"}, containerArgs(t, out))
	var overrides map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(configMapFile(t, out, "overrides.yaml")), &overrides))
	assert.Equal(t, "2s", dig(overrides, "processors", "batch", "timeout"))
	assert.Equal(t, []any{"debug/debug", "debug/extra"}, dig(overrides, "service", "pipelines", "metrics", "exporters"))
	validateCollectorConfig(t, out)

	// A misspelt section fails the render; a misspelt key fails validate (and the collector's
	// start), naming it; a merge that breaks a rule of the mapping processor says which.
	_, err = renderValues(t, "config: {reciever: {otlp: {}}}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reciever")
	if bin := collectorBinaryFor(t, "misspelt overrides not validated"); bin != "" {
		out, err = renderValues(t, "config: {processors: {batch: {timout: 2s}}}\n")
		require.NoError(t, err)
		res, _, err := runValidate(t, bin, out, nil)
		require.Error(t, err)
		assert.Contains(t, res, "timout")
		out, err = renderValues(t, "config: {processors: {modelplane_mapping: {drop_unmapped: false}}}\n")
		require.NoError(t, err)
		res, _, err = runValidate(t, bin, out, nil)
		require.Error(t, err)
		assert.Contains(t, res, "scrape_filter: needs drop_unmapped: true")
	}

	mergedInTheCollector(t)
}

// mergedInTheCollector runs the collector on the chart's OTLP receiver and mapping processor
// with its debug sink, then the overrides file the chart renders from `config`: a Prometheus
// exporter added, the pipeline's exporters replaced by it, and drop_unmapped (on by default)
// and scrape_filter (on in the chart's config) turned off. A pushed metric no mapping reads
// then reaches the endpoint beside the mapped one: the overrides were merged over the chart's
// config, false winning over true.
func mergedInTheCollector(t *testing.T) {
	bin := collectorBinaryFor(t, "overrides not run in the collector")
	httpPort, grpcPort, promPort := freeport.Port(t), freeport.Port(t), freeport.Port(t)
	out, err := renderValues(t, fmt.Sprintf(`otlp: {enabled: true, grpcPort: %d, httpPort: %d}
config:
  exporters:
    prometheus/local: {endpoint: "127.0.0.1:%d", resource_constant_labels: {included: ["*"]}}
  processors:
    modelplane_mapping: {drop_unmapped: false, scrape_filter: false}
  service:
    pipelines:
      metrics:
        exporters: [prometheus/local]
`, grpcPort, httpPort, promPort))
	require.NoError(t, err)
	rendered := renderedConfig(t, out)
	require.Equal(t, true, dig(rendered, "processors", "modelplane_mapping", "scrape_filter"))
	overrides := filepath.Join(t.TempDir(), "overrides.yaml")
	require.NoError(t, os.WriteFile(overrides, []byte(configMapFile(t, out, "overrides.yaml")), 0o644))
	startRenderedCollector(t, bin, otlpPipeline(rendered, "debug/debug", dig(rendered, "exporters", "debug/debug")), overrides)

	md := gatewayHistogram()
	m := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty()
	m.SetName("team_queue_depth")
	m.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(7)
	page := pushUntilServed(t, fmt.Sprintf("127.0.0.1:%d", httpPort), promPort, md, "modelplane_frontend_request_duration_seconds_count{")
	assert.Contains(t, page, "team_queue_depth{")
}

// updateStrategy: one node at a time by default, a share of the fleet when set, and no
// rollingUpdate beside OnDelete, which Kubernetes would refuse.
func TestUpdateStrategy(t *testing.T) {
	strategy := func(values string) (appsv1.DaemonSetUpdateStrategy, error) {
		out, err := renderValues(t, values)
		if err != nil {
			return appsv1.DaemonSetUpdateStrategy{}, err
		}
		return daemonSetOf(t, out).Spec.UpdateStrategy, nil
	}
	s, err := strategy("")
	require.NoError(t, err)
	assert.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, s.Type)
	assert.Equal(t, "1", s.RollingUpdate.MaxUnavailable.String())

	s, err = strategy("updateStrategy: {rollingUpdate: {maxUnavailable: 10%}}\n")
	require.NoError(t, err)
	assert.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, s.Type)
	assert.Equal(t, "10%", s.RollingUpdate.MaxUnavailable.String())

	s, err = strategy("updateStrategy: {type: OnDelete}\n")
	require.NoError(t, err)
	assert.Equal(t, appsv1.OnDeleteDaemonSetStrategyType, s.Type)
	assert.Nil(t, s.RollingUpdate)

	_, err = strategy("updateStrategy: {type: Recreate}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "updateStrategy")
}

// dcgm.nvml.from: hostPath, for nodes whose GPUs reach only pods that request them (GKE):
// the node's driver folder mounted read-only, NVML loaded from it, the container privileged
// for the device files, and no runtimeClassName.
func TestNVMLFromTheNodesDriverFolder(t *testing.T) {
	out, err := renderValues(t, "dcgm: {nvml: {from: hostPath, hostPath: /opt/nvidia}}\n")
	require.NoError(t, err)
	pod := daemonSetOf(t, out).Spec.Template.Spec
	assert.Nil(t, pod.RuntimeClassName, "no nvidia RuntimeClass on such nodes")
	c := pod.Containers[0]
	require.NotNil(t, c.SecurityContext.Privileged)
	assert.True(t, *c.SecurityContext.Privileged)
	assert.Nil(t, c.SecurityContext.AllowPrivilegeEscalation, "Kubernetes refuses false beside privileged")
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	for _, e := range c.Env {
		assert.NotEqual(t, "NVIDIA_VISIBLE_DEVICES", e.Name, "no runtime reads it")
	}
	var mounted bool
	for _, m := range c.VolumeMounts {
		if m.Name == "nvidia-driver" {
			mounted = true
			assert.Equal(t, "/usr/local/nvidia", m.MountPath)
			assert.True(t, m.ReadOnly)
		}
	}
	assert.True(t, mounted)
	var driver bool
	for _, v := range pod.Volumes {
		if v.Name == "nvidia-driver" {
			driver = true
			require.NotNil(t, v.HostPath)
			assert.Equal(t, "/opt/nvidia", v.HostPath.Path)
		}
	}
	assert.True(t, driver)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &cfg))
	assert.Equal(t, "/usr/local/nvidia/lib64/libnvidia-ml.so.1", dig(cfg, "receivers", "dcgm", "library_path"))
	validateCollectorConfig(t, out)

	// Without the receiver, nothing of it: the container stays unprivileged.
	out, err = renderValues(t, "dcgm: {enabled: false, nvml: {from: hostPath}}\n")
	require.NoError(t, err)
	assert.False(t, *daemonSetOf(t, out).Spec.Template.Spec.Containers[0].SecurityContext.Privileged)
	assert.NotContains(t, out[chartDir+"/templates/daemonset.yaml"], "nvidia-driver")

	// The default is the NVIDIA runtime, unprivileged.
	out, err = renderValues(t, "")
	require.NoError(t, err)
	ds := daemonSetOf(t, out)
	assert.Equal(t, "nvidia", *ds.Spec.Template.Spec.RuntimeClassName)
	assert.False(t, *ds.Spec.Template.Spec.Containers[0].SecurityContext.Privileged)
	assert.False(t, *ds.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation)

	// A runtime that honours NVIDIA_VISIBLE_DEVICES only in privileged containers
	// (Bottlerocket's default): the same runtime and variables, privileged.
	out, err = renderValues(t, "dcgm: {nvml: {privileged: true}}\n")
	require.NoError(t, err)
	ds = daemonSetOf(t, out)
	assert.Equal(t, "nvidia", *ds.Spec.Template.Spec.RuntimeClassName)
	c = ds.Spec.Template.Spec.Containers[0]
	assert.True(t, *c.SecurityContext.Privileged)
	assert.Nil(t, c.SecurityContext.AllowPrivilegeEscalation, "Kubernetes refuses false beside privileged")
	assert.Contains(t, c.Env, corev1.EnvVar{Name: "NVIDIA_VISIBLE_DEVICES", Value: "all"})
	assert.NotContains(t, out[chartDir+"/templates/daemonset.yaml"], "nvidia-driver")
	validateCollectorConfig(t, out)
	out, err = renderValues(t, "dcgm: {enabled: false, nvml: {privileged: true}}\n")
	require.NoError(t, err)
	assert.False(t, *daemonSetOf(t, out).Spec.Template.Spec.Containers[0].SecurityContext.Privileged, "nothing to be privileged for")

	for values, want := range map[string]string{
		"dcgm: {nvml: {privileged: yes-please}}\n":               "privileged",
		"dcgm: {nvml: {from: host}}\n":                           "from",
		"dcgm: {nvml: {from: hostPath, hostPath: opt/nvidia}}\n": "hostPath",
	} {
		_, err := renderValues(t, values)
		require.Error(t, err, values)
		assert.Contains(t, err.Error(), want, values)
	}
}

// The notes after an install name the DaemonSet to check, say how to see what it reads,
// and warn when no sink is set (metrics then reach no backend), no cluster name (series of
// two clusters in one backend then cannot be told apart by cluster) or an OTLP sink names
// the other transport's port.
func TestInstallNotes(t *testing.T) {
	notes := func(values string) string {
		out, err := renderValues(t, values)
		require.NoError(t, err)
		return out[chartDir+"/templates/NOTES.txt"]
	}
	n := notes("")
	assert.Contains(t, n, "kubectl -n modelplane-system get daemonset omp-otelcol-modelplane")
	assert.Contains(t, n, "kubectl -n modelplane-system logs daemonset/omp-otelcol-modelplane")
	assert.Contains(t, n, "pods/http:$(kubectl -n modelplane-system get pod -l app.kubernetes.io/instance=omp")
	assert.Contains(t, n, ":8888/proxy/metrics")
	assert.Contains(t, n, "nvidia.com/gpu.present is set by GPU feature discovery")
	assert.Contains(t, n, "No sinks are set")
	assert.Contains(t, n, "clusterName is empty: the series carry no cluster label")
	assert.Contains(t, n, `'RuntimeClass "nvidia" not found': no NVIDIA runtime is registered under that`)
	assert.Contains(t, n, "kubectl -n modelplane-system describe daemonset omp-otelcol-modelplane")

	n = notes("clusterName: prod\nsinks: [{name: mimir, type: prometheus_remote_write, endpoint: https://mimir.example.com/api/v1/push}]\nselfTelemetry: {enabled: false}\nnodeSelector: {nvidia.com/gpu.present: null, pool: gpu}\n")
	assert.NotContains(t, n, "No sinks are set")
	assert.NotContains(t, n, "proxy/metrics")
	assert.NotContains(t, n, "GPU feature discovery")
	assert.NotContains(t, n, "clusterName is empty")
	assert.Contains(t, n, "get daemonset omp-otelcol-modelplane")

	// An OTLP sink sent to the other transport's port, as the collector warns when it starts.
	n = notes("sinks: [{name: vendor, type: otlphttp, endpoint: \"http://collector.example.com:4317\"}, {name: gw, type: otlp_grpc, config: {endpoint: \"gateway:4318\"}}, {name: ok, type: otlp_http, endpoint: \"http://c:4318/v1\"}]\n")
	assert.Contains(t, n, "Sink vendor (otlp_http) sends to port 4317, OTLP/gRPC's")
	assert.Contains(t, n, "Sink gw (otlp_grpc) sends to port 4318, OTLP/HTTP's")
	assert.NotContains(t, n, "Sink ok")
	assert.NotContains(t, notes(""), "sends to port")

	// No RuntimeClass to be missing: none set, or NVML from the node's driver folder.
	assert.NotContains(t, notes("runtimeClassName: \"\"\n"), "RuntimeClass")
	assert.NotContains(t, notes("dcgm: {nvml: {from: hostPath}}\n"), "RuntimeClass")
}

// featureGates reach the collector as one --feature-gates argument, which it takes; a gate it
// does not have fails the start with the gate's name, and the schema refuses what cannot be a
// gate's name at all.
func TestFeatureGates(t *testing.T) {
	none, err := renderValues(t, "")
	require.NoError(t, err)
	for _, a := range containerArgs(t, none) {
		assert.NotContains(t, a, "--feature-gates", "no gates given, no argument")
	}

	out, err := renderValues(t, "featureGates: [-pdata.useProtoPooling, +pdata.useProtoPooling]\n")
	require.NoError(t, err)
	args := containerArgs(t, out)
	const want = "--feature-gates=-pdata.useProtoPooling,+pdata.useProtoPooling"
	require.Contains(t, args, want)

	_, err = renderValues(t, "featureGates: [--pdata.useProtoPooling]\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at '/featureGates/0': '--pdata.useProtoPooling' does not match pattern")

	bin := collectorBinaryFor(t, "the collector's answer to the argument")
	res, err := exec.Command(bin, want, "validate", "--config=modelplane:default").CombinedOutput()
	require.NoError(t, err, "%s", res)
	res, err = exec.Command(bin, "--feature-gates=-pdata.useProtoPoolin", "validate", "--config=modelplane:default").CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(res), `no such feature gate "pdata.useProtoPoolin"`)
}
