// This file is ours, not the builder's: `make generate` leaves it alone. It gives the
// generated collector its embedded default configuration and the few commands that the
// collector's own command line does not have.

package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/featuregate"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/internal/listencheck"
	"github.com/modelplaneai/otelcol-modelplane/internal/validatenotes"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// Subcommands of the collector's command line that need no configuration.
var noConfig = map[string]bool{"components": true, "help": true, "completion": true, "featuregate": true}

// defaultGates are the feature gates this distribution turns on. Every component has
// registered its gates before this package's init runs, and the command line's
// --feature-gates=-NAME, read later, still turns one off.
var defaultGates = []string{
	// A 429 from the backend (a Mimir tenant over its ingestion rate, VictoriaMetrics' rate
	// limit) is retried with the exporter's retry_on_failure backoff, as Prometheus' own
	// remote write does, instead of dropping the batch as a permanent error, which the
	// exporter does with the gate off (alpha since v0.101.0, and so off, through v0.165.1).
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

func init() {
	if err := setDefaultGates(); err != nil {
		// A gate that the components of this build no longer register: a build that a
		// unit test (TestDefaultGates) fails first.
		fmt.Fprintln(os.Stderr, "otelcol-modelplane:", err)
	}
	if strings.HasSuffix(os.Args[0], ".test") {
		return // `go test` of this package: its flags are the test binary's
	}
	os.Args = prepareArgs(os.Args)
}

// prepareArgs handles `default-config`, `preview`, `validate-mappings` and `--version` and, when no --config is given,
// points the collector at the embedded default.
func prepareArgs(args []string) []string {
	rest := args[1:]
	if len(rest) > 0 {
		switch rest[0] {
		case "default-config":
			os.Exit(printDefaultConfig(rest[1:], os.Stdout, os.Stderr))
		case "--version", "-v", "version":
			fmt.Println(versionLine())
			os.Exit(0)
		case "preview":
			os.Exit(runPreview(rest[1:], os.Stdout, os.Stderr))
		case "validate-mappings":
			os.Exit(runValidateMappings(rest[1:], os.Stdout, os.Stderr))
		case "-h", "--help", "help":
			if len(rest) == 1 {
				// The collector's help knows nothing of the embedded default and our
				// commands; it follows this.
				_, _ = io.WriteString(stdout, helpPreface)
			}
		case "validate":
			// validate also reads the mapping files and fails on any problem in them.
			modelplanemapping.SetStrictFileValidation(true)
			// It runs the converters without a logger; their warnings go to stderr.
			validatenotes.Out = os.Stderr
		}
		if noConfig[rest[0]] {
			return args
		}
	}
	if uris, run := startsOn(rest); run && !slices.ContainsFunc(uris, func(u string) bool { return !defaultconfig.Embedded(u) }) {
		// Nothing but the embedded configurations: their listen addresses come from the
		// environment, so a taken one can be named with the variable that moves it.
		listencheck.AtStart()
	}
	for _, a := range rest {
		if a == "-h" || a == "--help" || a == "--config" || strings.HasPrefix(a, "--config=") || a == "-c" {
			return args
		}
	}
	return append(args, "--config="+defaultconfig.URI)
}

// startsOn returns the --config locations of a command line that starts the collector, and
// whether it does: no subcommand, no help, and no --set, which could move an address.
func startsOn(rest []string) (uris []string, run bool) {
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "--config" || a == "-c":
			if i+1 < len(rest) {
				uris = append(uris, rest[i+1])
			}
			i++
		case strings.HasPrefix(a, "--config="):
			uris = append(uris, strings.TrimPrefix(a, "--config="))
		case a == "-h" || a == "--help" || a == "--set" || strings.HasPrefix(a, "--set="):
			return nil, false
		case !strings.HasPrefix(a, "-"):
			return nil, false // a subcommand, or a flag's value this reading cannot place
		}
	}
	return uris, true
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

// stdout is where the help preface goes; a test replaces it.
var stdout io.Writer = os.Stdout

const helpPreface = `otelcol-modelplane, the OpenTelemetry Collector for GPU inference fleets.

Without --config it runs its embedded default: it scrapes a vLLM, an SGLang and a
dcgm-exporter on this host (each once it answers), reads its GPUs through NVML (leaving
them to that dcgm-exporter while it answers), maps everything to modelplane_* series and serves them at
127.0.0.1:9464/metrics. The environment variables listed at the top of default-config
(MODELPLANE_VLLM_TARGET, ...) change those addresses, the interval and the cluster and
node labels.

Commands of otelcol-modelplane, besides the collector's own below:
  default-config   print the embedded default configuration; default-config remote-write
                   prints what --config modelplane:default --config modelplane:remote-write
                   adds: remote write to MODELPLANE_REMOTE_WRITE_ENDPOINT; default-config
                   otlp what modelplane:otlp adds: OTLP/HTTP to MODELPLANE_OTLP_ENDPOINT;
                   either keeps its queue on disk in MODELPLANE_QUEUE_DIR where it is set
  preview SOURCE   show the modelplane_* series made of one /metrics page (preview -h)
  validate         check a configuration and every mapping file it names
  validate-mappings FILE...
                   check MetricMapping files without a configuration (validate-mappings -h)
  --version        the version, the commit it was built from and the collector release

`

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
