// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/identity"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

func loadNamed(t *testing.T, name string) (*Config, error) {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub(component.NewIDWithName(metadata.Type, name).String())
	require.NoError(t, err)
	cfg := createDefaultConfig()
	if err := sub.Unmarshal(cfg); err != nil {
		return nil, err
	}
	return cfg, confmap.Validate(cfg)
}

func TestLoadConfig(t *testing.T) {
	cfg, err := loadNamed(t, "")
	require.NoError(t, err)
	assert.Equal(t, createDefaultConfig(), cfg)
	assert.Equal(t, []string{"default"}, cfg.Builtin)
	assert.Equal(t, identity.DefaultKeys, cfg.Identity.Keys)

	cfg, err = loadNamed(t, "all")
	require.NoError(t, err)
	assert.Equal(t, []string{"modelplane-vllm", "modelplane-gpu"}, cfg.Builtin)
	assert.Equal(t, []string{"/etc/otelcol-modelplane/mappings/*.yaml"}, cfg.MappingFiles)
	assert.Equal(t, 5*time.Second, cfg.ReloadInterval)
	assert.False(t, cfg.Identity.Enabled)
	assert.False(t, cfg.DropUnmapped)
	assert.Equal(t, []string{"DCGM_FI_*", "vllm:num_requests_waiting"}, cfg.KeepSources)
	assert.True(t, cfg.OTLPNames)
	assert.Equal(t, ClusterMappingsConfig{Enabled: true, AuthType: AuthKubeConfig, Kubeconfig: "/etc/otelcol-modelplane/kubeconfig", SyncTimeout: 3 * time.Second}, cfg.ClusterMappings)
	require.Len(t, cfg.Mappings, 1)
	assert.Equal(t, []metricmapping.Label{{Name: "reason", From: "finish_reason", Values: map[string]string{"eos": "stop"}}}, cfg.Mappings[0].Metrics[1].Labels)

	cfg, err = loadNamed(t, "nobuiltin")
	require.NoError(t, err)
	assert.Empty(t, cfg.Builtin)
}

func TestConfigErrors(t *testing.T) {
	cases := map[string]string{
		"badunit":  `config mappings[0]: MetricMapping "my-engine": metrics[0].fromUnit: unknown unit "Milisecond"`,
		"misspelt": `mappings[0].metrics[0]: unknown field "fromUnits" (want from, to, fromUnit, part, labels); mappings[0].metrics[0].labels[0]: unknown field "vaule" (want name, value, from, values)`,
		// labels written as a mapping of name to rule: named by field, not by yaml's Go types.
		"labelsmap":  `mappings[0].metrics[0].labels: want a list, got a mapping (each label is an item of the list that names it: "- name: model", then its value or from)`,
		"badbuiltin": `builtin: unknown mapping "modelplane-nope"; want default or some of [modelplane-gateway modelplane-gpu modelplane-gpu-dcgm49 modelplane-nim modelplane-picker modelplane-picker-legacy modelplane-sglang modelplane-vllm]`,
		// Every unknown name, each with the one it most likely meant.
		"misspeltbuiltins":     `builtin: unknown mapping "modelplane-vlm" (did you mean "modelplane-vllm"?), unknown mapping "defaults" (did you mean "default"?); want default or some of [`,
		"badbuiltintype":       `'builtin' source data must be an array or slice, got bool`,
		"badglob":              `mapping_files[0]: bad glob "/etc/[x.yaml"`,
		"scrapefilterkeepsall": "scrape_filter: needs drop_unmapped: true",
		"badauth":              `cluster_mappings::auth_type: want serviceAccount or kubeConfig, got "ServiceAccount"`,
		// A number without a unit is nanoseconds to the collector: the files would be read in a loop.
		"barereloadinterval": "reload_interval: 2ns is shorter than 1ms: a number without a unit is nanoseconds; write one, such as 2s",
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := loadNamed(t, name)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
}

// `otelcol-modelplane validate` checks mapping files too; a running collector does not fail
// on them.
func TestCheckSourcesReadsTheFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: x}\nspec:\n  metrics:\n  - {from: a, to: requests}\n"), 0o600))
	cfg := createDefaultConfig()
	cfg.MappingFiles = []string{filepath.Join(dir, "*.yaml")}
	require.NoError(t, cfg.Validate(), "Validate reads no file")
	_, err := cfg.CheckSources()
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+`: MetricMapping "x": line 6: metrics[0].to: "requests" does not match ^modelplane_[a-z0-9_]*[a-z0-9]$`)
}

// `validate` names the entries that earlier ones override, and those whose names do not say
// what their series will be, as warnings: the configuration is valid, and runs as the
// reference would, but not as anyone means.
func TestCheckSourcesWarnsAboutOverlaps(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.yaml")
	require.NoError(t, os.WriteFile(mine, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: mine}\nspec:\n  metrics:\n"+
		"  - {from: DCGM_FI_DEV_FB_USED, to: modelplane_gpu_memory_used_bytes, fromUnit: Mebibytes}\n"+
		"  - {from: my_latency_seconds, to: modelplane_my_latency_seconds, fromUnit: Milliseconds}\n"), 0o600))
	cfg := createDefaultConfig()
	cfg.MappingFiles = []string{filepath.Join(dir, "*.yaml")}
	warnings, err := cfg.CheckSources()
	require.NoError(t, err)
	assert.Equal(t, []string{mine + `: MetricMapping "mine" metrics[0]: "DCGM_FI_DEV_FB_USED" is converted from Mebibytes here and from Mebibytes by ` +
		`builtin/gpu.yaml: MetricMapping "modelplane-gpu" metrics[0]: its values are scaled twice; to replace the built-in, leave "modelplane-gpu" out of ` + "`builtin`",
		mine + `: MetricMapping "mine" metrics[1]: "my_latency_seconds" is in seconds by its name already, ` +
			"but fromUnit: Milliseconds scales its values as if they were in milliseconds"}, warnings)
}

// `validate` also loads the kubeconfig cluster_mappings names, without contacting the
// cluster: one that does not load would fail the start, and so a reload validate let through.
func TestCheckSourcesLoadsTheKubeconfig(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := createDefaultConfig()
	cfg.ClusterMappings = ClusterMappingsConfig{Enabled: true, AuthType: AuthKubeConfig, Kubeconfig: missing, SyncTimeout: time.Second}
	require.NoError(t, cfg.Validate(), "a running collector reports it when it starts")
	_, err := cfg.CheckSources()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cluster_mappings (auth_type kubeConfig): stat "+missing+": no such file or directory")

	require.NoError(t, os.WriteFile(missing, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:6443}\n"+
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"), 0o600))
	_, err = cfg.CheckSources()
	assert.NoError(t, err, "a kubeconfig that loads; the cluster is not contacted")
}

// The built-in catalog loads through the user decoder, holds Modelplane's 29 entries, and
// every mapping in it is valid.
func TestBuiltinCatalogCoversReference(t *testing.T) {
	cfg := createDefaultConfig()
	p, err := newProcessor(processortestSettings(), cfg)
	require.NoError(t, err)
	ours := map[string]string{}
	for _, m := range p.builtins {
		for _, e := range m.Metrics {
			ours[e.From+"/"+e.Part] = e.To + "/" + e.FromUnit
		}
	}
	for _, m := range anchorMappings(t) {
		for _, e := range m.Metrics {
			assert.Equal(t, e.To+"/"+e.FromUnit, ours[e.From+"/"+e.Part], "reference entry %s", e.From)
		}
	}
}

// An identity key that looks like a misspelt reference key, while that key is missing, is
// warned of: validate says it, and so does the processor's log at start. A key of one's own
// (zone, beside node) is not.
func TestIdentityKeyWarnings(t *testing.T) {
	cfg := createDefaultConfig()
	assert.Empty(t, cfg.identityKeyWarnings())
	cfg.Identity.Keys = []string{"cluster", "namspace", "deployment", "replica", "zone", "node"}
	want := `identity.keys[1]: "namspace" is not an identity key of the reference, and "namespace" is missing: did you mean it? A series keeps only its identity attributes, so namespace would be dropped`
	assert.Equal(t, []string{want}, cfg.identityKeyWarnings())

	require.NoError(t, cfg.Validate(), "keys of one's own are allowed")
	warnings, err := cfg.CheckSources()
	require.NoError(t, err)
	assert.Equal(t, []string{want}, warnings)

	core, logs := observer.New(zap.WarnLevel)
	set := processortest.NewNopSettings(metadata.Type)
	set.Logger = zap.New(core)
	_, err = newProcessor(set, cfg)
	require.NoError(t, err)
	require.Equal(t, 1, logs.Len())
	assert.Equal(t, want, logs.All()[0].Message)

	cfg.Identity.Enabled = false
	assert.Empty(t, cfg.identityKeyWarnings(), "keys are not used without identity")
}
