// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package helm

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/kubeapitest"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"
)

// With clusterMappings, the chart's service account reads the cluster's MetricMappings. The
// collector runs as a pod of that account (its token and the cluster's CA where Kubernetes
// mounts them), with the processor config the chart renders (serviceAccount, scrape filter
// on), against an API server that authenticates the token and authorizes every request by
// the chart's rendered ClusterRole and ClusterRoleBinding, as RBAC does. It maps an engine's
// page by the cluster's object from the first scrape. With the RBAC the chart renders
// without clusterMappings, the same collector is refused, says so, and maps nothing by it.
func TestClusterMappingsAsTheServiceAccount(t *testing.T) {
	bin := collectorBinary(t)
	withRule, err := renderValues(t, "clusterMappings: true\n")
	require.NoError(t, err)
	withoutRule, err := renderValues(t, "clusterMappings: false\n")
	require.NoError(t, err)
	var rendered struct {
		Processors map[string]any `json:"processors"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, withRule)), &rendered))
	processor := rendered.Processors["modelplane_mapping"]

	for _, tc := range []struct {
		name   string
		rbac   string
		mapped bool
	}{
		{"the chart's RBAC", withRule[chartDir+"/templates/rbac.yaml"], true},
		{"RBAC without the rule", withoutRule[chartDir+"/templates/rbac.yaml"], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sa := serviceAccountOf(t, tc.rbac)
			api := kubeapitest.StartWithAccess(t, tc.rbac)
			require.NoError(t, api.Apply(`apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: team-engine
spec:
  metrics:
  - from: engine_cache_usage_bytes
    to: modelplane_test_cache_bytes
`))
			engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, "# TYPE engine_cache_usage_bytes gauge\nengine_cache_usage_bytes 1024\n")
			}))
			t.Cleanup(engine.Close)
			exporter := fmt.Sprintf("127.0.0.1:%d", freeport.Port(t))
			telemetry := freeport.Port(t)
			log := runAsPod(t, api, sa, bin, map[string]any{
				"receivers": map[string]any{"prometheus": map[string]any{"config": map[string]any{"scrape_configs": []any{
					map[string]any{"job_name": "engine", "scrape_interval": "1s",
						"static_configs": []any{map[string]any{"targets": []string{strings.TrimPrefix(engine.URL, "http://")}}}},
				}}}},
				"processors": map[string]any{"modelplane_mapping": processor},
				"exporters":  map[string]any{"prometheus": map[string]any{"endpoint": exporter, "resource_constant_labels": map[string]any{"included": []string{"*"}}}},
				"service": map[string]any{
					"telemetry": map[string]any{"metrics": map[string]any{"level": "normal", "readers": []any{map[string]any{
						"pull": map[string]any{"exporter": map[string]any{"prometheus": map[string]any{"host": "127.0.0.1", "port": telemetry}}}}}}},
					"pipelines": map[string]any{"metrics": map[string]any{
						"receivers": []string{"prometheus"}, "processors": []string{"modelplane_mapping"}, "exporters": []string{"prometheus"}}},
				},
			})
			own := fmt.Sprintf("127.0.0.1:%d", telemetry)
			user := fmt.Sprintf("system:serviceaccount:%s:%s", sa.Namespace, sa.Name)
			if tc.mapped {
				require.Eventually(t, func() bool {
					return valueOf(pageAt(exporter), "modelplane_test_cache_bytes") == 1024
				}, 60*time.Second, 200*time.Millisecond, "the cluster object's series:\n%s", pageAt(exporter))
				assert.Equal(t, 1.0, valueOf(pageAt(own), "otelcol_processor_modelplane_mapping_cluster_synced"))
				assert.Empty(t, api.Refused())
				assert.NotContains(t, log.String(), "Cannot read MetricMappings")
				assert.NotContains(t, log.String(), "forbidden")
				return
			}
			require.Eventually(t, func() bool {
				return strings.Contains(log.String(), "Cannot read MetricMappings from the API server")
			}, 60*time.Second, 200*time.Millisecond, "the refusal in the collector's log:\n%s", log)
			assert.Contains(t, log.String(), fmt.Sprintf(`User \"%s\" cannot list resource \"metricmappings\" in API group \"modelplane.ai\" at the cluster scope`, user))
			assert.Contains(t, api.Refused(), user+" list modelplane.ai/metricmappings")
			// The engine's points reach the processor, and the object it could not read maps none.
			require.Eventually(t, func() bool {
				return valueOf(pageAt(own), "otelcol_processor_modelplane_mapping_datapoints_in") > 0
			}, 30*time.Second, 200*time.Millisecond, "points through the processor")
			assert.Equal(t, 0.0, valueOf(pageAt(own), "otelcol_processor_modelplane_mapping_cluster_synced"))
			assert.NotContains(t, pageAt(exporter), "modelplane_test_cache_bytes")
		})
	}
}

// serviceAccountOf is the ServiceAccount among the chart's RBAC documents.
func serviceAccountOf(t *testing.T, rbac string) corev1.ServiceAccount {
	t.Helper()
	for _, doc := range strings.Split(rbac, "\n---") {
		var sa corev1.ServiceAccount
		if yaml.Unmarshal([]byte(doc), &sa) == nil && sa.Kind == "ServiceAccount" {
			return sa
		}
	}
	t.Fatalf("no ServiceAccount in:\n%s", rbac)
	return corev1.ServiceAccount{}
}

// runAsPod runs the collector on cfg as a pod of sa against api until the test ends, and
// returns its output.
func runAsPod(t *testing.T, api *kubeapitest.Server, sa corev1.ServiceAccount, bin string, cfg map[string]any) *syncbuffer.Buffer {
	t.Helper()
	return runCollector(t, cfg, func(config string) *exec.Cmd {
		cmd := api.InPod(t, sa.Namespace, sa.Name, bin, "--config="+config)
		cmd.Env = append(cmd.Env, "NODE_NAME=node-1")
		return cmd
	})
}

// pageAt is the page at http://addr/metrics, empty when there is none.
func pageAt(addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return b.String()
}

// valueOf sums the samples of the metric name on a Prometheus text page; -1 when it has none.
func valueOf(page, name string) float64 {
	sum, found := 0.0, false
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err == nil {
			sum, found = sum+v, true
		}
	}
	if !found {
		return -1
	}
	return sum
}
