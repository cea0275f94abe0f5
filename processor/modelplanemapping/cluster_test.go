// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/kubeapitest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadatatest"
)

func TestClusterMappingsConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cm   ClusterMappingsConfig
		want string
	}{
		{"off needs nothing", ClusterMappingsConfig{}, ""},
		{"service account", ClusterMappingsConfig{Enabled: true, AuthType: AuthServiceAccount}, ""},
		{"kubeconfig", ClusterMappingsConfig{Enabled: true, AuthType: AuthKubeConfig, Kubeconfig: "/etc/kube/config"}, ""},
		{"unknown auth", ClusterMappingsConfig{Enabled: true, AuthType: "token"},
			`cluster_mappings::auth_type: want serviceAccount or kubeConfig, got "token"`},
		{"kubeconfig without its auth", ClusterMappingsConfig{Enabled: true, AuthType: AuthServiceAccount, Kubeconfig: "/k"},
			`cluster_mappings::kubeconfig: set to "/k", but auth_type is "serviceAccount" (want kubeConfig)`},
		{"negative wait", ClusterMappingsConfig{Enabled: true, AuthType: AuthServiceAccount, SyncTimeout: -time.Second},
			`cluster_mappings::sync_timeout: must not be negative, got -1s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := createDefaultConfig()
			cfg.ClusterMappings = tc.cm
			err := cfg.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
		})
	}
}

// Outside a pod, serviceAccount has no token to read, and a kubeconfig may not be there:
// Start fails and says why.
func TestClusterMappingsOutsideACluster(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	cfg := createDefaultConfig()
	cfg.ClusterMappings.Enabled = true
	p, err := newProcessor(processortest.NewNopSettings(metadata.Type), cfg)
	require.NoError(t, err)
	err = p.start(t.Context(), nil)
	require.ErrorContains(t, err, "cluster_mappings (auth_type serviceAccount): unable to load in-cluster configuration")

	// A kubeconfig that is not there is named.
	cfg.ClusterMappings = ClusterMappingsConfig{Enabled: true, AuthType: AuthKubeConfig, Kubeconfig: "/nonexistent/kubeconfig"}
	p, err = newProcessor(processortest.NewNopSettings(metadata.Type), cfg)
	require.NoError(t, err)
	err = p.start(t.Context(), nil)
	require.ErrorContains(t, err, "cluster_mappings (auth_type kubeConfig):")
	require.ErrorContains(t, err, "/nonexistent/kubeconfig")
}

// MetricMapping objects read from a real API server (Kubernetes' apiextensions-apiserver on
// etcd, with Modelplane's CustomResourceDefinition): an object there before the collector
// maps its first batch, and every change after maps whole batches, as a mapping file does.
func TestClusterMappings(t *testing.T) {
	api := kubeapitest.Start(t)

	t.Run("the scrape filter keeps what the cluster's objects read", func(t *testing.T) {
		require.NoError(t, api.Apply(mappingDoc("v6")+"  - from: src_cluster_only\n    to: modelplane_v6_c\n"))
		conf := confmap.NewFromStringMap(map[string]any{
			"builtin":       []any{},
			"scrape_filter": true,
			"cluster_mappings": map[string]any{
				"enabled": true, "auth_type": "kubeConfig", "kubeconfig": api.Kubeconfig,
			},
		})
		names, on, err := ScrapeSources(conf, nil)
		require.NoError(t, err)
		assert.True(t, on)
		assert.Equal(t, []string{"src_a", "src_b", "src_cluster_only"}, names)
	})

	t.Run("the scrape filter without an API server", func(t *testing.T) {
		// The same credentials for a server that is not there: the filter is built without
		// the cluster's objects, with a warning, and the collector still starts.
		data, err := os.ReadFile(api.Kubeconfig)
		require.NoError(t, err)
		gone := filepath.Join(t.TempDir(), "kubeconfig")
		require.NoError(t, os.WriteFile(gone, []byte(regexpServer.ReplaceAllString(string(data), "server: https://127.0.0.1:1")), 0o600))
		core, logs := observer.New(zap.InfoLevel)
		conf := confmap.NewFromStringMap(map[string]any{
			"builtin":          []any{},
			"scrape_filter":    true,
			"mappings":         []any{map[string]any{"name": "inline", "metrics": []any{map[string]any{"from": "src_inline", "to": "modelplane_inline"}}}},
			"cluster_mappings": map[string]any{"enabled": true, "auth_type": "kubeConfig", "kubeconfig": gone},
		})
		names, on, err := ScrapeSources(conf, zap.New(core))
		require.NoError(t, err)
		assert.True(t, on)
		assert.Equal(t, []string{"src_inline"}, names)
		require.Equal(t, 1, logs.FilterMessageSnippet("built without the cluster's MetricMappings").Len())
		assert.Contains(t, logs.All()[0].ContextMap()["error"], "connection refused")
	})

	// Last: it stops the API server.
	t.Run("follows the cluster's objects", func(t *testing.T) {
		require.NoError(t, api.Apply(mappingDoc("v1")))
		set, logs := observedSettings()
		cfg := clusterMappingsOnly(t, api.Kubeconfig, time.Minute)
		f, saw := startFlow(t, set, cfg)
		// Start waited for the first list: no batch went out unmapped.
		assert.False(t, f.saw("none"), "a batch before the cluster's mappings were read")
		saw("v1")
		require.NoError(t, api.Apply(mappingDoc("v2")))
		saw("v2")
		// An edit of the object's metadata only changes no mapping: no reload.
		loaded := logs.FilterMessage("Mappings loaded").Len()
		require.NoError(t, api.Apply(strings.Replace(mappingDoc("v2"), "  name: reload\n", "  name: reload\n  annotations: {owner: platform-team}\n", 1)))
		time.Sleep(time.Second)
		assert.Equal(t, loaded, logs.FilterMessage("Mappings loaded").Len())
		saw("v2")

		// The API server refuses what its schema refuses, as kubectl shows a user.
		err := api.Apply(strings.Replace(mappingDoc("v3"), "to: modelplane_v3_b", "to: modelplane_v3_b\n    fromUnit: Milisecond", 1))
		require.ErrorContains(t, err, `spec.metrics[1].fromUnit: Unsupported value: "Milisecond"`)
		// What the schema cannot say (a label with both a value and a source) reaches the
		// collector, which keeps the object's last good version and says why.
		broken := strings.Replace(mappingDoc("v3"), "to: modelplane_v3_b", "to: modelplane_v3_b\n    labels:\n    - {name: engine, value: vllm, from: model}", 1)
		require.NoError(t, api.Apply(broken))
		skipped := func() []observer.LoggedEntry { return logs.FilterMessage("Skipped a mapping").All() }
		require.Eventually(t, func() bool { return len(skipped()) > 0 }, 10*time.Second, 10*time.Millisecond)
		assert.Equal(t, `cluster metricmappings.modelplane.ai: MetricMapping "reload": metrics[1].labels[0]: sets both value and from; exactly one is allowed; kept its last good version`,
			skipped()[0].ContextMap()["error"])
		saw("v2")

		require.NoError(t, api.Apply(mappingDoc("v4")))
		saw("v4")
		require.NoError(t, api.Delete("reload"))
		saw("none")
		require.NoError(t, api.Apply(mappingDoc("v5")))
		saw("v5")
		assert.Nil(t, f.bad.Load())
		assert.Len(t, skipped(), 1, "one warning per broken update")
		assert.Zero(t, logs.FilterMessageSnippet("Cannot read MetricMappings").Len())

		// The API server goes away: the mappings read so far stay in force while the
		// informer waits for it.
		api.Kill()
		saw("v5")
		time.Sleep(3 * time.Second)
		saw("v5")
		assert.Nil(t, f.bad.Load())

		// A collector that starts while the API server is away starts all the same, after
		// sync_timeout, and says so.
		set2, logs2 := observedSettings()
		f2, saw2 := startFlow(t, set2, clusterMappingsOnly(t, api.Kubeconfig, time.Second))
		saw2("none")
		require.Equal(t, 1, logs2.FilterMessageSnippet("MetricMappings not read from the API server yet").Len())
		assert.Nil(t, f2.bad.Load())
	})
}

// A cluster without Modelplane's definition (the chart installed with clusterMappings before
// Modelplane): the collector starts, says once why it reads no MetricMappings, and takes them
// as soon as the definition and an object are there.
func TestClusterMappingsBeforeTheDefinition(t *testing.T) {
	api := kubeapitest.StartWithoutDefinition(t)
	set, logs := observedSettings()
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	logger := set.Logger
	set.TelemetrySettings = metadatatest.NewSettings(tel).TelemetrySettings
	set.Logger = logger
	f, saw := startFlow(t, set, clusterMappingsOnly(t, api.Kubeconfig, time.Second))
	saw("none")
	assert.Equal(t, int64(0), gaugeValue(tel, "otelcol_processor_modelplane_mapping_cluster_synced"),
		"for an alert on a collector that reads no MetricMappings")
	cannot := func() []observer.LoggedEntry { return logs.FilterMessageSnippet("Cannot read MetricMappings").All() }
	require.Eventually(t, func() bool { return len(cannot()) > 0 }, 10*time.Second, 10*time.Millisecond)
	assert.Contains(t, cannot()[0].ContextMap()["error"], "the server could not find the requested resource")
	assert.Equal(t, "metricmappings.modelplane.ai", cannot()[0].ContextMap()["resource"])

	api.InstallDefinition(t)
	require.NoError(t, api.Apply(mappingDoc("v1")))
	// The informer retries with back-off, up to 30 s apart.
	require.Eventually(t, func() bool { return f.saw("v1") }, 60*time.Second, 10*time.Millisecond)
	saw("v1")
	metadatatest.AssertEqualProcessorModelplaneMappingClusterSynced(t, tel, []metricdata.DataPoint[int64]{{
		Value: 1, Attributes: attribute.NewSet(attribute.String("processor", "modelplane_mapping")),
	}}, metricdatatest.IgnoreTimestamp())
	assert.Len(t, cannot(), 1, "said once, not on every retry")
	assert.Nil(t, f.bad.Load())
}

// clusterMappingsOnly is a config with no built-ins and no identity step that reads the
// MetricMappings of the cluster in kubeconfig, polled every 20 ms, waiting syncTimeout at start.
func clusterMappingsOnly(t *testing.T, kubeconfig string, syncTimeout time.Duration) *Config {
	t.Helper()
	cfg := createDefaultConfig()
	cfg.Builtin = nil
	cfg.Identity.Enabled = false
	cfg.ReloadInterval = 20 * time.Millisecond
	cfg.ClusterMappings = ClusterMappingsConfig{Enabled: true, AuthType: AuthKubeConfig, Kubeconfig: kubeconfig, SyncTimeout: syncTimeout}
	require.NoError(t, cfg.Validate())
	return cfg
}

var regexpServer = regexp.MustCompile(`server: https://127\.0\.0\.1:\d+`)
