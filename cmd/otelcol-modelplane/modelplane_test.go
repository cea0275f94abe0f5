package main

import (
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

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/internal/envprovider"
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

func TestPrepareArgs(t *testing.T) {
	def := "--config=" + defaultconfig.URI
	cases := map[string][]string{
		"":                                {def},
		"validate":                        {"validate", def},
		"--config=x.yaml":                 {"--config=x.yaml"},
		"--config x.yaml":                 {"--config", "x.yaml"},
		"validate --config x.yaml":        {"validate", "--config", "x.yaml"},
		"components":                      {"components"},
		"--help":                          {"--help"},
		"--feature-gates=foo":             {"--feature-gates=foo", def},
		"--set=processors::batch::x=1 -c": {"--set=processors::batch::x=1", "-c"},
	}
	var help strings.Builder
	stdout = &help
	t.Cleanup(func() { stdout = os.Stdout })
	for in, want := range cases {
		help.Reset()
		args := append([]string{"otelcol-modelplane"}, strings.Fields(in)...)
		assert.Equal(t, append([]string{"otelcol-modelplane"}, want...), prepareArgs(args), in)
		if in == "--help" {
			assert.Equal(t, helpPreface, help.String())
		} else {
			assert.Empty(t, help.String(), in)
		}
	}
	// -h, --help and help before the collector's help; help for one command is that
	// command's own.
	for _, in := range []string{"-h", "help"} {
		help.Reset()
		assert.Equal(t, []string{"otelcol-modelplane", in}, prepareArgs([]string{"otelcol-modelplane", in}))
		assert.Equal(t, helpPreface, help.String(), in)
	}
	help.Reset()
	assert.Equal(t, []string{"otelcol-modelplane", "help", "validate"}, prepareArgs([]string{"otelcol-modelplane", "help", "validate"}))
	assert.Empty(t, help.String())
}

// The listen addresses are checked before a start on embedded configurations only, whose
// addresses come from the environment.
func TestStartsOn(t *testing.T) {
	for in, want := range map[string]bool{
		"": true,
		"--config modelplane:default --config=modelplane:remote-write": true,
		"-c modelplane:default --feature-gates=foo":                    true,
		"--config=modelplane:default --config=x.yaml":                  true, // run, but on a file of the user's
		"validate":                             false,
		"validate --config=modelplane:default": false,
		"--config=modelplane:default --set=exporters::x=1": false,
		"--help":     false,
		"components": false,
	} {
		uris, run := startsOn(strings.Fields(in))
		assert.Equal(t, want, run, in)
		if in == "--config=modelplane:default --config=x.yaml" {
			assert.Equal(t, []string{"modelplane:default", "x.yaml"}, uris)
			assert.False(t, defaultconfig.Embedded(uris[1]))
		}
	}
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
			ProviderFactories: []confmap.ProviderFactory{envprovider.NewFactory(), defaultconfig.NewFactory()},
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
		cmd := exec.Command("scripts/check-generated.sh", builder, config, "cmd/otelcol-modelplane")
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
