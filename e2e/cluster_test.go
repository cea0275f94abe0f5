// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/kubeapitest"
)

func clusterMapping(name, from, to string) string {
	return `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: ` + name + `
spec:
  metrics:
  - from: ` + from + `
    to: ` + to + `
`
}

// The collector reads MetricMapping objects from a real API server (Kubernetes'
// apiextensions-apiserver on etcd, with deploy/crd's definition) with the scrape filter on,
// as the chart runs it: an object there at start is kept by the filter from the first scrape;
// one created later that reads a new metric has the collector rebuild the filter by itself;
// an edited object ends the series it replaces, and a deleted one ends its own, in
// Prometheus, within seconds.
func TestClusterMappingsInTheCollector(t *testing.T) {
	api := kubeapitest.Start(t)
	require.NoError(t, api.Apply(clusterMapping("cluster-a", "process_open_fds", "modelplane_e2e_open_fds")))

	prom := startPrometheus(t)
	engines := []*engine{startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))}
	col := startCollector(t, collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(),
		Health: freeport.Addr(t), ScrapeFilter: true, Kubeconfig: api.Kubeconfig})
	eventually(t, "the series of the object there at start", func() bool {
		return len(prom.query(t, `modelplane_e2e_open_fds{replica="llama-0"}`)) == 1
	})
	out := col.out.String()
	assert.NotContains(t, out, "Config updated", "the filter built at start kept its source: no reload")
	assert.Contains(t, out, `"cluster_objects": 1`)

	require.NoError(t, api.Apply(clusterMapping("cluster-b", "process_max_fds", "modelplane_e2e_max_fds")))
	eventually(t, "the series of an object created later, whose source the filter dropped", func() bool {
		return len(prom.query(t, `modelplane_e2e_max_fds{replica="llama-0"}`)) == 1
	})
	got := prom.query(t, `modelplane_e2e_max_fds`)
	assert.Equal(t, 1048576.0, got[0].Value)
	out = col.out.String()
	assert.Equal(t, 1, strings.Count(out, "reloading the configuration to keep them"))
	assert.Equal(t, 1, strings.Count(out, "Config updated, performing partial receiver reload"))

	require.NoError(t, api.Apply(clusterMapping("cluster-a", "process_open_fds", "modelplane_e2e_fds_open")))
	eventually(t, "the edited object's new series, and its old one ended", func() bool {
		return len(prom.query(t, `modelplane_e2e_fds_open`)) == 1 && len(prom.query(t, `modelplane_e2e_open_fds`)) == 0
	})
	require.NoError(t, api.Delete("cluster-b"))
	eventually(t, "the deleted object's series ended", func() bool {
		return len(prom.query(t, `modelplane_e2e_max_fds`)) == 0
	})
	// Everything else flowed throughout.
	assert.Len(t, prom.query(t, `modelplane_requests_waiting{replica="llama-0"}`), 1)
	assert.Len(t, prom.query(t, `modelplane_e2e_fds_open`), 1)
	assert.NotContains(t, col.out.String(), "Cannot read MetricMappings")
}

// `preview --cluster` applies the cluster's MetricMapping objects as a collector with
// cluster_mappings does (kubeconfig from --kubeconfig or $KUBECONFIG), and an object the
// processor cannot use, which the API server's schema let through, fails the preview naming
// the object, the field and the value, where a running collector would skip it with a warning.
func TestPreviewWithTheClusterMappings(t *testing.T) {
	api := kubeapitest.Start(t)
	require.NoError(t, api.Apply(clusterMapping("team-engine", "my_engine_queued_requests", "modelplane_e2e_queued")))

	out, errOut, code := preview(t, "--no-builtins", "--kubeconfig", api.Kubeconfig, "testdata/my-engine.prom")
	require.Zero(t, code, errOut)
	series := pageSeries(t, out, "instance", "job", "service_instance_id", "service_name", "model_name")
	assert.Equal(t, "4", series["modelplane_e2e_queued{}"], out)
	// Without --cluster the object is not read.
	out, errOut, code = preview(t, "--no-builtins", "testdata/my-engine.prom")
	require.Zero(t, code, errOut)
	assert.NotContains(t, out, "modelplane_e2e_queued")

	broken := strings.Replace(clusterMapping("team-broken", "my_engine_queued_requests", "modelplane_e2e_queued_copy"),
		"to: modelplane_e2e_queued_copy", "to: modelplane_e2e_queued_copy\n    labels:\n    - {name: engine, value: vllm, from: model}", 1)
	require.NoError(t, api.Apply(broken))
	t.Setenv("KUBECONFIG", api.Kubeconfig)
	out, errOut, code = preview(t, "--no-builtins", "--cluster", "testdata/my-engine.prom")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `the mapping processor warned:
Skipped a mapping: cluster metricmappings.modelplane.ai: MetricMapping "team-broken": metrics[0].labels[0]: sets both value and from; exactly one is allowed`)

	// No API server: the preview says it could not read the objects.
	api.Stop()
	_, errOut, code = preview(t, "--no-builtins", "--cluster", "testdata/my-engine.prom")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "MetricMappings not read from the API server yet")
}
