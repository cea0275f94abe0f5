// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/otelcol"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/envprovider"
	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
)

// The components the binary lists are exactly the rows of docs/components.md.
func TestComponentsMatchDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/components.md")
	require.NoError(t, err)
	row := regexp.MustCompile(`(?m)^\| (receiver|processor|exporter|extension) \| ([a-z_]+) \|`)
	var documented []string
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		documented = append(documented, m[1]+"/"+m[2])
	}
	factories, err := components()
	require.NoError(t, err)
	var built []string
	add := func(kind string, types []component.Type) {
		for _, ty := range types {
			built = append(built, kind+"/"+ty.String())
		}
	}
	add("receiver", keys(factories.Receivers))
	add("processor", keys(factories.Processors))
	add("exporter", keys(factories.Exporters))
	add("extension", keys(factories.Extensions))
	assert.Empty(t, factories.Connectors)
	sort.Strings(documented)
	sort.Strings(built)
	assert.Equal(t, documented, built)
}

// keys lists the types of m, leaving out deprecated aliases (otlp for otlp_grpc, ...), which
// `components` does not list either.
func keys[T component.Factory](m map[component.Type]T) []component.Type {
	out := make([]component.Type, 0, len(m))
	for k, f := range m {
		if f.Type() == k {
			out = append(out, k)
		}
	}
	return out
}

func TestVersionMatchesBuilderConfig(t *testing.T) {
	raw, err := os.ReadFile("../../builder-config.yaml")
	require.NoError(t, err)
	var bc struct {
		Dist struct {
			Version string `yaml:"version"`
		} `yaml:"dist"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &bc))
	assert.Equal(t, bc.Dist.Version, version)
	assert.Contains(t, versionLine(), "otelcol-modelplane version "+version)
}

// --version names the commit a build recorded (go build -buildvcs, as `make build` asks for),
// and says when the tree had changes not committed.
func TestVersionNamesTheCommit(t *testing.T) {
	otelcol := debug.Module{Path: "go.opentelemetry.io/collector/otelcol", Version: "v0.161.0"}
	bi := &debug.BuildInfo{Deps: []*debug.Module{&otelcol}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "b9261f4c0ffee0123456789abcdef0123456789a"}, {Key: "vcs.modified", Value: "false"},
	}}
	assert.Equal(t, "otelcol-modelplane version "+version+" (commit b9261f4c0ffe, OpenTelemetry Collector v0.161.0)", formatVersion(bi))
	bi.Settings[2].Value = "true"
	assert.Equal(t, "otelcol-modelplane version "+version+" (commit b9261f4c0ffe with local changes, OpenTelemetry Collector v0.161.0)", formatVersion(bi))
	bi.Settings = nil // built without VCS information: -buildvcs=false, or outside a checkout
	assert.Equal(t, "otelcol-modelplane version "+version+" (OpenTelemetry Collector v0.161.0)", formatVersion(bi))
	assert.Equal(t, "otelcol-modelplane version "+version+" (OpenTelemetry Collector unknown)", formatVersion(nil))

	// `make build` passes them with -X, which wins over Go's stamping.
	commit, localChanges = "0123456789ab", ""
	t.Cleanup(func() { commit, localChanges = "", "" })
	bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "ffffffffffffffff"}, {Key: "vcs.modified", Value: "true"}}
	assert.Equal(t, "otelcol-modelplane version "+version+" (commit 0123456789ab, OpenTelemetry Collector v0.161.0)", formatVersion(bi))
	localChanges = "true"
	assert.Equal(t, "otelcol-modelplane version "+version+" (commit 0123456789ab with local changes, OpenTelemetry Collector v0.161.0)", formatVersion(bi))
}

// The listen addresses are checked at a start on the embedded configurations only, whose
// addresses come from the environment: the command's flags, once parsed, say so.
func TestOnEmbeddedOnly(t *testing.T) {
	for in, want := range map[string]bool{
		"": true,
		"--config modelplane:default --config=modelplane:remote-write":       true,
		"--config=modelplane:default --feature-gates=-service.partialReload": true,
		"--config=modelplane:default --config=x.yaml":                        false,
		"--config=x.yaml": false,
		"--config=modelplane:default --set=exporters::x=1": false,
	} {
		root := newCommand(io.Discard, io.Discard)
		require.NoError(t, root.ParseFlags(strings.Fields(in)), in)
		assert.Equal(t, want, onEmbeddedOnly(root), in)
	}
}

// The commands of this distribution are the collector's command's, with validate replaced by
// one that also reads the mapping files; each returns its exit status.
func TestCommands(t *testing.T) {
	run := func(args ...string) (string, string, error) {
		var out, errOut strings.Builder
		root := newCommand(&out, &errOut)
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&errOut)
		err := root.Execute()
		return out.String(), errOut.String(), err
	}
	var names []string
	for _, c := range newCommand(io.Discard, io.Discard).Commands() {
		names = append(names, c.Name())
	}
	assert.Equal(t, []string{"components", "default-config", "featuregate", "preview", "print-config", "validate", "validate-mappings", "version"}, names)

	out, _, err := run("default-config", "otlp")
	require.NoError(t, err)
	assert.Equal(t, string(defaultconfig.OTLPYAML), out)
	_, errOut, err := run("default-config", "nope")
	assert.Equal(t, exitCode(2), err)
	assert.Contains(t, errOut, `no embedded configuration "nope"`)

	out, _, err = run("version")
	require.NoError(t, err)
	assert.Equal(t, versionLine()+"\n", out)
	out, _, err = run("--version")
	require.NoError(t, err)
	assert.Equal(t, versionLine()+"\n", out)

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: x}\nspec:\n  metrics:\n  - {from: a, to: requests}\n"), 0o600))
	cfg := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("receivers: {prometheus: {config: {scrape_configs: [{job_name: x, static_configs: [{targets: [\"127.0.0.1:1\"]}]}]}}}\n"+
		"processors: {modelplane_mapping: {mapping_files: ["+bad+"]}}\nexporters: {debug: {}}\n"+
		"service: {pipelines: {metrics: {receivers: [prometheus], processors: [modelplane_mapping], exporters: [debug]}}}\n"), 0o600))
	_, errOut, err = run("validate", "--config="+cfg)
	require.Error(t, err, "validate reads the mapping files")
	assert.Contains(t, errOut, "processors::modelplane_mapping: "+bad+`: MetricMapping "x": line 6: metrics[0].to: "requests" does not match`)
	require.NoError(t, os.WriteFile(bad, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: x}\nspec:\n  metrics:\n  - {from: a, to: modelplane_a}\n"), 0o600))
	_, errOut, err = run("validate", "--config="+cfg)
	require.NoError(t, err, errOut)
}

// embeddedConfig resolves uris with the env and modelplane providers and validates the
// result against the components of this build.
func embeddedConfig(t *testing.T, uris ...string) *otelcol.Config {
	t.Helper()
	factories, err := components()
	require.NoError(t, err)
	provider, err := otelcol.NewConfigProvider(otelcol.ConfigProviderSettings{
		ResolverSettings: confmap.ResolverSettings{
			URIs:              uris,
			ProviderFactories: []confmap.ProviderFactory{envprovider.NewFactory(nil), defaultconfig.NewFactory()},
			DefaultScheme:     "env",
		},
	})
	require.NoError(t, err)
	cfg, err := provider.Get(t.Context(), factories)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate())
	return cfg
}

// The embedded default resolves and validates against the components of this build.
func TestDefaultConfigIsValid(t *testing.T) {
	assert.Len(t, embeddedConfig(t, defaultconfig.URI).Service.Pipelines, 1)
}

// The remote write overrides merged over the default resolve and validate, with the
// endpoint given: the pipeline exports to both.
func TestRemoteWriteOverridesAreValid(t *testing.T) {
	t.Setenv("MODELPLANE_REMOTE_WRITE_ENDPOINT", "https://mimir.example.com/api/v1/push")
	var exporters []string
	for _, p := range embeddedConfig(t, defaultconfig.URI, defaultconfig.RemoteWriteURI).Service.Pipelines {
		for _, e := range p.Exporters {
			exporters = append(exporters, e.String())
		}
	}
	assert.Equal(t, []string{"prometheus", "prometheus_remote_write"}, exporters)
}

// default-config prints the default, or the embedded configuration it is named; any other
// name is refused, listing the names.
func TestPrintDefaultConfig(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []byte
	}{{nil, defaultconfig.YAML}, {[]string{"default"}, defaultconfig.YAML}, {[]string{"remote-write"}, defaultconfig.RemoteWriteYAML}, {[]string{"otlp"}, defaultconfig.OTLPYAML}} {
		var out, errOut strings.Builder
		assert.Equal(t, 0, printDefaultConfig(c.args, &out, &errOut), c.args)
		assert.Equal(t, string(c.want), out.String(), c.args)
		assert.Empty(t, errOut.String())
	}
	var out, errOut strings.Builder
	assert.Equal(t, 2, printDefaultConfig([]string{"remote_write"}, &out, &errOut))
	assert.Empty(t, out.String())
	assert.Equal(t, "default-config: no embedded configuration \"remote_write\"; there are default, otlp, remote-write\n", errOut.String())
	errOut.Reset()
	assert.Equal(t, 2, printDefaultConfig([]string{"default", "remote-write"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "default-config takes one name (default, otlp, remote-write)")
}

// make check-generated fails when builder-config.yaml changes without `make generate`.
func TestCheckGeneratedDetectsStaleCode(t *testing.T) {
	builder := os.Getenv("BUILDER_BIN")
	if builder == "" {
		t.Skip("BUILDER_BIN is unset: `make test` installs the builder and sets it")
	}
	raw, err := os.ReadFile("../../builder-config.yaml")
	require.NoError(t, err)
	changed := regexp.MustCompile(`(?m)^  - gomod: go.opentelemetry.io/collector/exporter/debugexporter .*\n`).ReplaceAllString(string(raw), "")
	require.NotEqual(t, string(raw), changed)
	cfgPath := filepath.Join("..", "..", "builder-config.stale-test.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(changed), 0o600))
	t.Cleanup(func() { _ = os.Remove(cfgPath) })

	run := func(config string) (string, error) {
		cmd := exec.Command("scripts/check-generated.sh", builder, config, "cmd/otelcol-modelplane", "components.go")
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("builder-config.stale-test.yaml")
	require.Error(t, err, out)
	assert.Contains(t, out, "stale: cmd/otelcol-modelplane/components.go")
	out, err = run("builder-config.yaml")
	require.NoError(t, err, out)
}

// The gates this distribution turns on are registered by the components of this build, and on.
func TestDefaultGates(t *testing.T) {
	require.NoError(t, setDefaultGates())
	on := map[string]bool{}
	featuregate.GlobalRegistry().VisitAll(func(g *featuregate.Gate) { on[g.ID()] = g.IsEnabled() })
	for _, id := range defaultGates {
		assert.True(t, on[id], id)
	}
}
