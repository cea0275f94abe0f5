// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"go.opentelemetry.io/collector/featuregate"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/otelcol"

	"github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/configcheck"
	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
)

// defaultGates are the feature gates this distribution turns on, before the command line's
// --feature-gates=-NAME, which still turns one off.
var defaultGates = []string{
	// A 429 from the backend (a Mimir tenant over its ingestion rate) is retried with the
	// exporter's backoff, as Prometheus' own remote write does, not dropped as permanent.
	"exporter.prometheusremotewritexporter.RetryOn429",
	// A reload that changes only receivers restarts only the receivers, and the mapping
	// processor, its series and the exporters' queues go on. The reloads the providers ask for
	// are of that kind: the scrape filter rebuilt for a new mapping, a late dcgm-exporter.
	"service.partialReload",
}

func setDefaultGates() error {
	for _, id := range defaultGates {
		if err := featuregate.GlobalRegistry().Set(id, true); err != nil {
			return fmt.Errorf("feature gate %s: %w", id, err)
		}
	}
	return nil
}

// newCommand is the collector's command with the embedded default as its configuration when
// no --config is given, a validate that also reads the mapping files, and the commands of
// this distribution.
func newCommand(stdout, stderr io.Writer) *cobra.Command {
	var root *cobra.Command
	root = otelcol.NewCommand(settings(configcheck.Settings{ListenersAtStart: func() bool { return onEmbeddedOnly(root) }}, nil))
	root.Long = about
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")
	for _, c := range root.Commands() {
		if c.Name() == "validate" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(
		&cobra.Command{
			Use:   "validate",
			Short: "Validates the configuration and every mapping file it names, without running the collector",
			// The collector's own validate, on settings whose checks also read the mapping files.
			DisableFlagParsing: true,
			SilenceErrors:      true,
			SilenceUsage:       true,
			RunE: func(c *cobra.Command, args []string) error {
				strict := otelcol.NewCommand(settings(configcheck.Settings{Notes: stderr, MappingSources: true}, stderr))
				strict.SetArgs(append([]string{"validate"}, args...))
				strict.SetOut(c.OutOrStdout())
				strict.SetErr(c.ErrOrStderr())
				return strict.Execute()
			},
		},
		ownCommand("default-config [NAME]", "Prints an embedded configuration: default (without NAME), remote-write or otlp",
			func(args []string) int { return printDefaultConfig(args, stdout, stderr) }),
		ownCommand("preview SOURCE", "Shows the modelplane_* series made of one /metrics page (preview -h)",
			func(args []string) int { return runPreview(args, stdout, stderr) }),
		ownCommand("validate-mappings FILE...", "Checks MetricMapping files without a configuration (validate-mappings -h)",
			func(args []string) int { return runValidateMappings(args, stdout, stderr) }),
		&cobra.Command{
			Use:   "version",
			Short: "Prints the version, the commit it was built from and the collector release",
			Args:  cobra.NoArgs,
			Run:   func(*cobra.Command, []string) { fmt.Fprintln(stdout, versionLine()) },
		},
	)
	return root
}

// ownCommand is a command that parses its own flags (flag.FlagSet, as `-h` shows them) and
// returns its exit status, having said why.
func ownCommand(use, short string, run func(args []string) int) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              short,
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		RunE: func(_ *cobra.Command, args []string) error {
			if code := run(args); code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
}

// onEmbeddedOnly tells whether the command line starts the collector on the embedded
// configurations alone (no --config, or only modelplane: ones, and no --set), whose listen
// addresses come from the environment.
func onEmbeddedOnly(root *cobra.Command) bool {
	if f := root.Flags().Lookup("set"); f != nil && f.Changed {
		return false
	}
	f := root.Flags().Lookup("config")
	if f == nil || !f.Changed {
		return true
	}
	// The collector's flag prints its values as [a, b].
	for _, uri := range strings.Split(strings.Trim(f.Value.String(), "[]"), ", ") {
		if !defaultconfig.Embedded(uri) {
			return false
		}
	}
	return true
}

// printDefaultConfig writes the embedded configuration args name (the default without one)
// and returns the exit code.
func printDefaultConfig(args []string, stdout, stderr io.Writer) int {
	name := "default"
	switch {
	case len(args) == 1:
		name = args[0]
	case len(args) > 1:
		fmt.Fprintf(stderr, "default-config takes one name (%s), not %q\n", strings.Join(defaultconfig.Names(), ", "), args)
		return 2
	}
	doc, ok := defaultconfig.Documents[name]
	if !ok {
		fmt.Fprintf(stderr, "default-config: no embedded configuration %q; there are %s\n", name, strings.Join(defaultconfig.Names(), ", "))
		return 2
	}
	_, _ = stdout.Write(doc)
	return 0
}

// about is the command's help text, before the list of its commands.
const about = `otelcol-modelplane, the OpenTelemetry Collector for GPU inference fleets.

Without --config it runs its embedded default: it scrapes a vLLM, an SGLang and a
dcgm-exporter on this host (each once it answers), reads its GPUs through NVML (leaving
them to that dcgm-exporter while it answers), maps everything to modelplane_* series and serves them at
127.0.0.1:9464/metrics. The environment variables listed at the top of default-config
(MODELPLANE_VLLM_TARGET, ...) change those addresses, the interval and the cluster and
node labels. default-config remote-write prints what --config modelplane:default
--config modelplane:remote-write adds: remote write to MODELPLANE_REMOTE_WRITE_ENDPOINT;
default-config otlp what modelplane:otlp adds: OTLP/HTTP to MODELPLANE_OTLP_ENDPOINT.`

// versionLine names our version, the commit it was built from (when the build recorded one)
// and the collector release it is built on.
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(bi)
}

// commit and localChanges are set by `make build` (-ldflags -X); a build without them names
// the commit Go's VCS stamping recorded, if any.
var commit, localChanges string

func formatVersion(bi *debug.BuildInfo) string {
	collector, rev, modified := "unknown", commit, localChanges == "true"
	if bi != nil {
		for _, d := range bi.Deps {
			if d.Path == "go.opentelemetry.io/collector/otelcol" {
				collector = d.Version
			}
		}
		if rev == "" { // not built by make: what Go's VCS stamping recorded, if anything
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value[:min(12, len(s.Value))]
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
		}
	}
	built := ""
	if rev != "" {
		// A fleet runs what a release built; a tree with uncommitted changes says so.
		built = "commit " + rev
		if modified {
			built += " with local changes"
		}
		built += ", "
	}
	return fmt.Sprintf("otelcol-modelplane version %s (%sOpenTelemetry Collector %s)", version, built, collector)
}

// version is dist.version of builder-config.yaml; a test keeps the two equal.
const version = "0.1.0"
