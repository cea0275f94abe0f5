// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package helm

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The values users expect of a chart (examples/migration sets each): names, the service
// account with a workload identity, security contexts merged over the chart's, extra
// environment and volumes, probe timings, fields of the dcgm receiver, the native series
// kept, and a prometheus pull sink behind a Service and a ServiceMonitor.
func TestStandardValues(t *testing.T) {
	values, err := os.ReadFile("examples/migration/values.yaml")
	require.NoError(t, err)
	out, err := renderValues(t, string(values))
	require.NoError(t, err)

	ds := daemonSetOf(t, out)
	assert.Equal(t, "gpu-telemetry", ds.Name, "fullnameOverride")
	pod := ds.Spec.Template.Spec
	assert.Equal(t, "gpu-telemetry-collector", pod.ServiceAccountName)
	require.NotNil(t, pod.SecurityContext.FSGroup)
	assert.Equal(t, int64(65532), *pod.SecurityContext.FSGroup, "podSecurityContext")
	assert.Equal(t, int64(0), *pod.SecurityContext.RunAsUser, "merged over the chart's")
	c := pod.Containers[0]
	assert.Equal(t, "spc_t", c.SecurityContext.SELinuxOptions.Type, "securityContext")
	assert.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop, "merged over the chart's")
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.Contains(t, c.Env, corev1.EnvVar{Name: "HTTPS_PROXY", Value: "http://proxy.internal:3128"})
	require.Len(t, c.EnvFrom, 1)
	assert.Equal(t, "collector-env", c.EnvFrom[0].ConfigMapRef.Name)
	assert.Contains(t, c.VolumeMounts, corev1.VolumeMount{Name: "ca", MountPath: "/etc/ssl/corporate", ReadOnly: true})
	var ca *corev1.Volume
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == "ca" {
			ca = &pod.Volumes[i]
		}
	}
	require.NotNil(t, ca)
	assert.Equal(t, "corporate-ca", ca.ConfigMap.Name)
	assert.Equal(t, int32(10), c.LivenessProbe.InitialDelaySeconds)
	assert.Equal(t, int32(6), c.LivenessProbe.FailureThreshold)
	assert.Equal(t, int32(10), c.LivenessProbe.PeriodSeconds, "the chart's, kept")
	assert.Equal(t, "/", c.LivenessProbe.HTTPGet.Path)
	assert.Equal(t, int32(10), c.ReadinessProbe.PeriodSeconds)
	var prom *corev1.ContainerPort
	for i := range c.Ports {
		if c.Ports[i].Name == "prom-0" {
			prom = &c.Ports[i]
		}
	}
	require.NotNil(t, prom, "the prometheus sink's port")
	assert.Equal(t, int32(9464), prom.ContainerPort)
	assert.True(t, strings.Contains(out[chartDir+"/templates/rbac.yaml"], "eks.amazonaws.com/role-arn: arn:aws:iam::123456789012:role/gpu-telemetry"))

	var collector struct {
		Receivers struct {
			DCGM struct {
				Metrics map[string]struct{ Enabled bool } `json:"metrics"`
			} `json:"dcgm"`
		} `json:"receivers"`
		Processors struct {
			Mapping struct {
				KeepSources []string `json:"keep_sources"`
			} `json:"modelplane_mapping"`
		} `json:"processors"`
		Exporters map[string]map[string]any `json:"exporters"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &collector))
	assert.Equal(t, map[string]struct{ Enabled bool }{"DCGM_FI_DEV_POWER_VIOLATION": {true}, "DCGM_FI_DEV_ENC_UTIL": {false}}, collector.Receivers.DCGM.Metrics)
	assert.Equal(t, []string{"DCGM_FI_*", "vllm:*"}, collector.Processors.Mapping.KeepSources)
	assert.Equal(t, "[${env:POD_IP}]:9464", collector.Exporters["prometheus/local"]["endpoint"])

	docs := strings.Split(out[chartDir+"/templates/service.yaml"], "\n---\n")
	require.Len(t, docs, 2, "the Service and the ServiceMonitor")
	var svc corev1.Service
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[0]), &svc))
	assert.Equal(t, corev1.ClusterIPNone, svc.Spec.ClusterIP)
	assert.Equal(t, int32(9464), svc.Spec.Ports[0].Port)
	var sm serviceMonitor
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[1]), &sm))
	assert.Equal(t, "prom-0", sm.Spec.Endpoints[0].Port)
	assert.Equal(t, "kube-prometheus-stack", sm.Labels["release"])
}

// The schema refuses what would render a collector that does not start.
func TestStandardValuesSchema(t *testing.T) {
	for values, want := range map[string]string{
		"keepSourceSeries: ['*']":                           "keepSourceSeries",
		"dcgm: {metrics: {GPU_TEMP: true}}":                 "GPU_TEMP",
		"dcgm: {metrics: {DCGM_FI_DEV_GPU_TEMP: 1}}":        "DCGM_FI_DEV_GPU_TEMP",
		"serviceAccount: {create: true, nam: x}":            "nam",
		"sinks: [{name: p, type: prometheus, port: 70000}]": "port",
	} {
		_, err := renderValues(t, values)
		if assert.Error(t, err, values) {
			assert.Contains(t, err.Error(), want, values)
		}
	}
	// Without a service account of the chart's, the pod runs as the one named.
	out, err := renderValues(t, "serviceAccount: {create: false, name: platform-sa}")
	require.NoError(t, err)
	assert.Equal(t, "platform-sa", daemonSetOf(t, out).Spec.Template.Spec.ServiceAccountName)
	assert.NotContains(t, out[chartDir+"/templates/rbac.yaml"], "apiVersion: v1\nkind: ServiceAccount")
}
